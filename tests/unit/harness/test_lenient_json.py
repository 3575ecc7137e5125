"""Tests for slmbench.harness.lenient_json: near-JSON fixes and where brackets close."""

from __future__ import annotations

from typing import Any

import pytest

from slmbench.harness.lenient_json import BracketIndex, balanced_end, fix_near_json, loads_json


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("{'a': 'b'}", {"a": "b"}),
        ('{"a": [1, 2,], }', {"a": [1, 2]}),
        ("{'ok': True, 'no': False, 'x': None}", {"ok": True, "no": False, "x": None}),
        ("{'say': 'it\\'s \"fine\"'}", {"say": 'it\'s "fine"'}),
        ('{"keep": "True, None,}", \'n\': None}', {"keep": "True, None,}", "n": None}),
    ],
)
def test_near_json_fixes(text: str, value: Any) -> None:
    assert loads_json(text, lenient=True) == (value, True)
    with pytest.raises(ValueError):
        loads_json(text, lenient=False)


def test_loads_json_clean_and_hopeless() -> None:
    assert loads_json('{"a": 1}', lenient=False) == ({"a": 1}, False)
    with pytest.raises(ValueError):
        loads_json("{a: 1", lenient=True)
    with pytest.raises(ValueError):
        loads_json("[" * 100000, lenient=True)
    assert fix_near_json("'unterminated") == '"unterminated"'


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ('{"a": "}"} tail', 0, 10),
        ("x(1, (2))", 1, 9),
        ("{[}]", 0, None),
        ("{", 0, None),
        ('{"a\\"}": 1}', 0, 11),
    ],
)
def test_balanced_end(text: str, start: int, end: int | None) -> None:
    assert balanced_end(text, start) == end


def test_bracket_index_settles_nested_brackets() -> None:
    index = BracketIndex('{{[}"]"()')
    assert index.end(0) is None and index.end(1) is None and index.end(2) is None
    assert index.end(7) == 9
    same = BracketIndex('x {"a": {"b": [1]}} y')
    assert [same.end(i) for i in (2, 8, 14)] == [19, 18, 17]
