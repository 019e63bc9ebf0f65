"""Architecture rule: every text a page renders as Markdown is built from the project's own
words and escaped data, never from raw data (issue 41, part 2).

Streamlit renders Markdown (with images, links and some HTML) in ``st.markdown``, the message
boxes, captions, headings, expander, tab and widget labels. Data a user, a link, a file or a
cluster supplies (ids, topic names, query parameter values, broker errors) reaches such a call
only through :func:`dashboard.model.plain.escape_markdown` (or ``headline``). Found on ``main``:
an unknown ``sample=`` value in a link echoed into an error box, so ``![x](http://host/x)`` in a
link made every viewer's browser fetch that address; also a watched group's id and its members'
ids in badges, an uploaded file's reason, a broker's error text.

What this test reads (Python's own parser, every module of ``dashboard/``): the first argument
(or ``body``/``label``) of each call of a Markdown-rendering method. It may be made of:

* string literals, and UPPER_CASE constants (the project's own words);
* ``escape_markdown(...)`` or ``headline(...)`` calls;
* numbers: an f-string field with a numeric format (``{n:,}``, ``{x:.1f}``, ``{i:d}``), ``len()``;
* a name or call whose name says it holds escaped Markdown (``..._markdown``, ``markdown_...``:
  such a function escapes every piece of data it puts in; its own tests show it);
* ``" ".join(x_markdown)`` of such a name, conditionals and ``+`` of the above.

Anything else fails with the place, so the fix is to escape at the call (or to name a builder
that escapes as ``..._markdown``).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "dashboard"

#: Methods whose text Streamlit renders as Markdown (a label's Markdown includes images).
MARKDOWN_METHODS = frozenset(
    {
        "error", "warning", "info", "success", "markdown", "caption", "toast", "exception",
        "title", "header", "subheader", "write", "expander", "status", "popover", "button",
        "download_button", "link_button", "form_submit_button", "checkbox", "toggle", "radio",
        "selectbox", "multiselect", "text_input", "number_input", "text_area", "slider",
        "select_slider", "file_uploader", "segmented_control", "pills", "metric", "tabs",
        "page_link", "date_input", "time_input", "color_picker",
    }
)  # fmt: skip
ESCAPING_CALLS = frozenset({"escape_markdown", "headline", "len"})
NUMERIC_FORMAT = frozenset(",._0123456789dfeg%")
#: Known exceptions, each with why it is safe.
ALLOWED_CALLS = {
    # A fenced code block of the commands to run, made from the server's own configured paths
    # (never from a link: part 1 of issue 41 names datasets instead of paths).
    "pipeline_hint",
}


def _name_of(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Call):
        return _name_of(node.func)
    if isinstance(node, ast.Subscript):
        return _name_of(node.value)
    return ""


def _says_markdown(name: str) -> bool:
    return name.endswith("_markdown") or name.startswith("markdown_")


def is_plain(node: ast.AST) -> bool:
    """Whether ``node`` builds Markdown only from the project's words and escaped data."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.JoinedStr):
        return all(_is_plain_piece(piece) for piece in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return is_plain(node.left) and is_plain(node.right)
    if isinstance(node, ast.IfExp):
        return is_plain(node.body) and is_plain(node.orelse)
    if isinstance(node, ast.Call):
        name = _name_of(node.func)
        if name == "join" and isinstance(node.func, ast.Attribute):
            return is_plain(node.func.value) and all(map(is_plain, node.args))
        return name in ESCAPING_CALLS or name in ALLOWED_CALLS or _says_markdown(name)
    if isinstance(node, ast.Name | ast.Attribute | ast.Subscript):
        name = _name_of(node)
        return name.isupper() or _says_markdown(name)
    return False


def _is_plain_piece(piece: ast.AST) -> bool:
    if not isinstance(piece, ast.FormattedValue):
        return is_plain(piece)
    spec = piece.format_spec
    if isinstance(spec, ast.JoinedStr) and all(isinstance(p, ast.Constant) for p in spec.values):
        text = "".join(str(p.value) for p in spec.values if isinstance(p, ast.Constant))
        if text and set(text) <= NUMERIC_FORMAT:
            return True  # a numeric format: the value must be a number
    return is_plain(piece.value)


def unescaped_calls(source: str) -> list[tuple[int, str]]:
    """``(line, call)`` of each Markdown-rendering call in ``source`` fed raw data."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if node.func.attr not in MARKDOWN_METHODS:
            continue
        texts = node.args[:1] or [k.value for k in node.keywords if k.arg in ("body", "label")]
        found += [(node.lineno, ast.unparse(text)) for text in texts if not is_plain(text)]
    return found


def test_worked_examples_of_the_rule() -> None:
    assert unescaped_calls('st.error(f"unknown sample {name}")')
    assert unescaped_calls("st.markdown(text)")
    assert unescaped_calls('st.caption(", ".join(picked))')
    assert unescaped_calls('st.button(f"Open {title}")')
    assert not unescaped_calls('st.error(f"unknown sample {escape_markdown(name)}")')
    assert not unescaped_calls('st.markdown(f"**{count:,}** members, {len(ids)} ids")')
    assert not unescaped_calls("st.markdown(tables.markdown_table(frame))")
    assert not unescaped_calls('st.markdown(" ".join(badges_markdown) if badges_markdown else "-")')
    assert not unescaped_calls("st.info(NO_LINK)")


def test_no_dashboard_module_renders_raw_data_as_markdown() -> None:
    problems = [
        f"{path.relative_to(ROOT.parent)}:{line}: {call}"
        for path in sorted(ROOT.rglob("*.py"))
        for line, call in unescaped_calls(path.read_text(encoding="utf-8"))
    ]
    assert not problems, (
        "Markdown built from raw data; wrap each piece of data in escape_markdown() (or name a"
        " builder that escapes it ..._markdown):\n" + "\n".join(problems)
    )


#: The message boxes: given no ``icon``, Streamlit takes a leading emoji or ``:material/...:`` of
#: the text as the icon and cuts it from the text (a file named ``©.json`` showed as ``.json``).
BOX_METHODS = frozenset({"error", "warning", "info", "success"})
#: Names of loggers, whose ``error``/``warning``/``info`` are not boxes.
LOGGERS = frozenset({"_LOG", "LOG", "logging", "logger", "_LOGGER", "log"})


def _picks_a_box(func: ast.AST) -> bool:
    """Whether a call's ``func`` is a message box, or chooses one (``(st.a if c else st.b)``)."""
    if isinstance(func, ast.IfExp):
        return _picks_a_box(func.body) or _picks_a_box(func.orelse)
    return (
        isinstance(func, ast.Attribute)
        and func.attr in BOX_METHODS
        and _name_of(func.value) not in LOGGERS
    )


def boxes_without_icon(source: str) -> list[int]:
    """The lines of ``source`` with a message box called without ``icon=``."""
    return [
        node.lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call)
        and _picks_a_box(node.func)
        and not any(keyword.arg == "icon" for keyword in node.keywords)
    ]


def test_worked_examples_of_the_icon_rule() -> None:
    assert boxes_without_icon("st.error(text)\n") == [1]
    assert boxes_without_icon("box.info(text, icon=INFO_ICON)\n") == []
    assert boxes_without_icon("_LOG.error('%s', text)\n") == []
    assert boxes_without_icon("(st.success if ok else st.warning)(text)\n") == [1]


def test_every_message_box_names_its_icon() -> None:
    missing = [
        f"{path.relative_to(ROOT.parent)}:{line}"
        for path in sorted(ROOT.rglob("*.py"))
        for line in boxes_without_icon(path.read_text("utf-8"))
    ]
    assert not missing, missing
