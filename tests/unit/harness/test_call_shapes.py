"""Tests for slmbench.harness.call_shapes: calls found inside parsed JSON values."""

# ruff: noqa: E501  (the case tables keep one case per line)

from __future__ import annotations

from typing import Any

import pytest
from tests.fixtures.parser_tools import TOOLS

from slmbench.harness.call_shapes import find_calls


def is_tool(name: str) -> bool:
    return name in TOOLS


@pytest.mark.parametrize(
    ("value", "names"),
    [
        ({"name": "search", "arguments": {}}, ["search"]),
        ({"tool": "search"}, ["search"]),
        ({"name": "Ann", "age": 3}, []),
        ({"name": "other", "parameters": {}}, ["other"]),
        ({"tool_calls": [{"function": {"name": "search", "arguments": "{}"}}, {"name": "pair", "args": {}}]}, ["search", "pair"]),
        ({"search": {"query": "x"}}, ["search"]),
        ({"search": "x"}, []),
        ([1, "a", None], []),
    ],
)  # fmt: skip
def test_find_calls(value: Any, names: list[str]) -> None:
    assert [c.name for c in find_calls(value, is_tool)] == names


def test_call_shape_canonical_keys() -> None:
    (canonical,) = find_calls({"name": "search", "arguments": {}}, is_tool)
    (other,) = find_calls({"name": "search", "arguments": {}, "id": 1}, is_tool)
    assert canonical.canonical and not other.canonical
    (named,) = find_calls({"name": "zzz"}, is_tool, any_name=True)
    assert named.name == "zzz" and not named.has_arguments
