"""Tests for slmbench.harness.schema_check: the schema check's reasons and the sibling-required guard."""

from __future__ import annotations

from tests.fixtures.parser_tools import TOOLS

from slmbench.harness.schema_check import check_arguments, describe_parameters


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
