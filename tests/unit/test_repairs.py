"""Tests for slmbench.harness.repairs: lenient JSON, call shapes, argument repairs and schema reasons."""

# ruff: noqa: E501  (the case tables keep one case per line)

from __future__ import annotations

from typing import Any

import pytest
from tests.fixtures.parser_tools import TOOLS as SHARED_TOOLS

from slmbench.harness.repairs import (
    CONTENT_RULES,
    BracketIndex,
    ContentRule,
    balanced_end,
    check_arguments,
    describe_parameters,
    find_calls,
    fix_near_json,
    loads_json,
    repair_arguments,
    sql_kind,
)

_OBJ: dict[str, Any] = {"type": "object", "additionalProperties": False}
TOOLS: dict[str, dict[str, Any]] = {
    **SHARED_TOOLS,
    "write_file": {
        **_OBJ,
        "properties": {"path": {"type": "string"}, "content": {"type": "string"}, "mode": {"type": "string"}},
        "required": ["path", "content"],
    },
    "pair": {
        **_OBJ,
        "properties": {"left": {"type": "string"}, "right": {"type": "string"}},
        "required": ["left", "right"],
    },
}


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


@pytest.mark.parametrize(
    ("sql", "kind"),
    [
        ("SELECT * FROM t", "select"),
        ("  select 1", "select"),
        ("WITH a AS (SELECT 1), b AS (DELETE FROM x) SELECT * FROM a", "select"),
        ("with recent as (select * from t) delete from t where id in (select id from recent)", "delete"),
        ("-- note: delete later\nINSERT INTO t VALUES ('select')", "insert"),
        ("/* update? */ UPDATE t SET a = 1", "update"),
        ("(SELECT 1)", None),
        ("DROP TABLE t", None),
        ("", None),
        (42, None),
    ],
)
def test_sql_kind(sql: Any, kind: str | None) -> None:
    assert sql_kind(sql) == kind


@pytest.mark.parametrize(
    ("tool", "args", "fixed", "repairs"),
    [
        # kind_from_content
        ("data_query", {"kind": "select", "sql": "DELETE FROM t"}, {"kind": "delete", "sql": "DELETE FROM t"}, ("kind_from_content",)),
        ("data_query", {"sql": "WITH a AS (SELECT 1) SELECT * FROM a"}, {"kind": "select", "sql": "WITH a AS (SELECT 1) SELECT * FROM a"}, ("kind_from_content",)),
        ("data_query", {"kind": "update", "sql": "UPDATE t SET a=1"}, {"kind": "update", "sql": "UPDATE t SET a=1"}, ()),
        ("data_query", {"kind": "select", "sql": "DROP TABLE t"}, {"kind": "select", "sql": "DROP TABLE t"}, ()),
        ("data_query", {"query": "SELECT 1"}, {"kind": "select", "sql": "SELECT 1"}, ("rename_field", "kind_from_content")),
        # rename_field: one surplus to one missing, close names and synonyms
        ("search", {"text": "cats"}, {"query": "cats"}, ("rename_field",)),
        ("search", {"querry": "cats", "limit": 2}, {"query": "cats", "limit": 2}, ("rename_field",)),
        ("write_file", {"file": "a.txt", "text": "hi"}, {"path": "a.txt", "content": "hi"}, ("rename_field",)),
        ("notification", {"recipient": "Bo", "msg": "hi"}, {"recipient": "Bo", "message": "hi"}, ("rename_field",)),
        # rename_flat_two_field: both fields wrong on a flat two-string tool
        ("notification", {"to": "Bo", "text": "hi"}, {"recipient": "Bo", "message": "hi"}, ("rename_flat_two_field",)),
        ("notification", {"to": "Bo", "body_text": "hi"}, {"recipient": "Bo", "message": "hi"}, ("rename_flat_two_field",)),
        # ambiguous or ill-typed: no repair
        ("search", {"a": "x", "b": "y"}, {"a": "x", "b": "y"}, ()),
        ("search", {"text": 3}, {"text": 3}, ()),
        ("write_file", {"x": "a.txt"}, {"x": "a.txt"}, ()),
        ("pair", {"one": "a", "two": "b"}, {"one": "a", "two": "b"}, ()),
        ("notification", {"to": "Bo", "text": 5}, {"recipient": "Bo", "text": 5}, ("rename_field",)),
        ("search", {"query": "x"}, {"query": "x"}, ()),
        # a field another tool requires is never renamed blindly (it hints at that tool)
        ("search", {"sql": "SELECT 1"}, {"sql": "SELECT 1"}, ()),
        ("notification", {"recipient": "Bo", "sql": "x"}, {"recipient": "Bo", "sql": "x"}, ()),
    ],
)  # fmt: skip
def test_repair_arguments(
    tool: str, args: dict[str, Any], fixed: dict[str, Any], repairs: tuple[str, ...]
) -> None:
    before = dict(args)
    assert repair_arguments(tool, args, TOOLS) == (fixed, repairs)
    assert args == before


def test_content_rules_are_a_table() -> None:
    rules = {**CONTENT_RULES, "mail": ContentRule("verb", "body", lambda v: str(v).split()[0].lower())}
    tools = {"mail": {"properties": {"verb": {"enum": ["send", "draft"]}, "body": {"type": "string"}}}}
    saved = dict(CONTENT_RULES)
    CONTENT_RULES.update(rules)
    try:
        assert repair_arguments("mail", {"verb": "draft", "body": "Send it"}, tools)[0]["verb"] == "send"
    finally:
        CONTENT_RULES.clear()
        CONTENT_RULES.update(saved)


def test_check_arguments_reasons() -> None:
    assert check_arguments("search", {"query": "a"}, TOOLS, guard=False) is None
    reason, guarded = check_arguments("search", {"limit": "2"}, TOOLS, guard=False) or ("", True)
    assert "'query' is a required property" in reason and "limit: '2' is not of type 'integer'" in reason
    assert not guarded


def test_sibling_required_guard() -> None:
    args = {"query": "a", "sql": "SELECT 1", "junk": 1}
    plain, plain_guarded = check_arguments("search", args, TOOLS, guard=False) or ("", True)
    assert "remove 'sql'" in plain and "remove 'junk'" in plain and not plain_guarded
    guarded, flag = check_arguments("search", args, TOOLS, guard=True) or ("", False)
    assert flag and "remove 'sql'" not in guarded and "belongs to tool data_query" in guarded
    assert "remove 'junk'" in guarded


def test_describe_parameters() -> None:
    text = describe_parameters(TOOLS["data_query"])
    assert text == "kind (one of select|insert|update|delete, required), sql (string, required)"
    assert describe_parameters({"type": "object"}) == "none"
