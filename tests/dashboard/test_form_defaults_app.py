"""The what-if form says what it will do: the *Add member* placeholder is the id an empty field
adds (issue 36)."""

from __future__ import annotations

import pytest

from tests.dashboard.app_session import add_form, assert_no_exception, start_app


@pytest.mark.parametrize("sample", ["member-leaves-roundrobin-vs-sticky", "range-vs-roundrobin"])
def test_the_add_member_placeholder_is_the_id_an_empty_field_adds(sample: str) -> None:
    app = start_app(sample=sample)
    before = set(app.multiselect(key="shape.remove_ids").options)
    placeholder = add_form(app, "add_id").placeholder
    add_form(app, "add_submit").click().run()
    assert_no_exception(app)
    added = set(app.multiselect(key="shape.remove_ids").options) - before
    assert added == {placeholder}
    # The next placeholder names the next free id, not the one just taken.
    assert add_form(app, "add_id").placeholder not in before | added
