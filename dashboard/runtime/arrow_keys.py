"""Keys that press buttons: in projector mode Left and Right press the walkthrough's
◀ Previous and Next ▶, Escape leaves projector mode (:func:`bind_keys`).

Streamlit has no keyboard shortcuts for buttons, so a one-pixel frame (:func:`streamlit.iframe`
with an HTML string, public API) runs a few lines of script that listen for
keys in the page around it (its parent document: same origin, as Streamlit serves both) and
click the button whose element carries the key's class (``st-key-<widget key>``, which Streamlit
gives every keyed widget). The whole script is guarded: if the parent document cannot be
reached, or a button is missing or disabled, a key does nothing and the buttons still work with
the mouse. A key typed into a text field is left alone.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

import streamlit as st

#: The script; ``KEYS`` becomes ``{"ArrowLeft": "st-key-teach-back", ...}``.
_SCRIPT = """
<script>
(function () {
  const keys = KEYS;
  let doc;
  try { doc = window.parent.document; } catch (error) { return; }
  if (!doc) { return; }
  const press = function (event) {
    const target = event.target;
    const tag = target && target.tagName ? target.tagName.toLowerCase() : "";
    if (tag === "input" || tag === "textarea" || (target && target.isContentEditable)) {
      return;
    }
    const name = keys[event.key];
    if (!name || event.altKey || event.ctrlKey || event.metaKey) { return; }
    const button = doc.querySelector("." + name + " button");
    if (button && !button.disabled) { event.preventDefault(); button.click(); }
  };
  try {
    if (doc.__aeKeys) { doc.removeEventListener("keydown", doc.__aeKeys); }
    doc.__aeKeys = press;
    doc.addEventListener("keydown", press);
  } catch (error) { /* the buttons still work with the mouse */ }
})();
</script>
"""


def widget_class(key: str) -> str:
    """The class Streamlit gives the element of the widget keyed ``key``: ``st-key-`` and the key
    with every character but letters, digits, ``_`` and ``-`` made a ``-``."""
    return "st-key-" + "".join(
        c if c.isascii() and (c.isalnum() or c in "_-") else "-" for c in key
    )


def script(keys: Mapping[str, str]) -> str:
    """The component's page: key name (``ArrowLeft``) -> the widget key of the button to press."""
    classes = {name: widget_class(widget) for name, widget in keys.items()}
    return _SCRIPT.replace("KEYS", json.dumps(classes, sort_keys=True))


def bind_keys(keys: Mapping[str, str]) -> None:
    """Press the button keyed ``keys[name]`` when key ``name`` is pressed on the page (drawn on
    every run that wants the keys: the same component, kept by the browser between runs)."""
    st.iframe(script(keys), height=1)
