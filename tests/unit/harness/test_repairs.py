"""Tests for slmbench.harness.repairs: the argument repairs of the repaired mode."""

# ruff: noqa: E501  (the case tables keep one case per line)

from __future__ import annotations

from typing import Any

import pytest
from tests.fixtures.parser_tools import TOOLS as SHARED_TOOLS

from slmbench.harness.repairs import CONTENT_RULES, ContentRule, repair_arguments, sql_kind

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
