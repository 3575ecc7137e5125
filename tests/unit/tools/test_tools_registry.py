"""Tests for the tool registry and the contract every tool keeps."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from slmbench.tools import (
    Tool,
    ToolContext,
    build_tools,
    function_schema,
    is_side_effect,
    tool_class,
    tool_names,
)

NAMES = [
    "web_search", "knowledge_lookup", "calendar", "data_query", "csv_processor",
    "code_interpreter", "file_operator", "email", "notification", "calculator",
]  # fmt: skip


def test_the_ten_tools_are_registered_under_their_own_names() -> None:
    assert tool_names() == tuple(sorted(NAMES))
    assert all(tool_class(name).name == name for name in NAMES)


@pytest.mark.parametrize(
    ("tool", "arguments", "changes"),
    [
        ("email", {"action": "send"}, True),
        ("email", {"action": "read"}, False),
        ("data_query", {"kind": "delete"}, True),
        ("notification", {}, True),
        ("calculator", {"expression": "1+1"}, False),
        ("email", "not a mapping", False),
    ],
)
def test_a_tool_declares_which_calls_change_the_world(tool: str, arguments: object, changes: bool) -> None:
    assert is_side_effect(tool, arguments) is changes


def test_unknown_tool_names_it_and_the_known_ones(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown tool.*teleport.*known tools: calculator, calendar"):
        build_tools(["calculator", "teleport"], ToolContext(workdir=tmp_path))


@pytest.mark.parametrize("name", NAMES)
def test_each_tool_keeps_the_protocol(name: str, tmp_path: Path) -> None:
    tool = build_tools([name], ToolContext(workdir=tmp_path))[name]
    assert isinstance(tool, Tool)
    assert tool.name == name
    assert 10 < len(tool.description) < 400
    schema = tool.parameters
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["type"] == "object" and schema["additionalProperties"] is False
    assert set(schema["required"]) <= set(schema["properties"])
    json.dumps(function_schema(tool))
    json.dumps(tool.snapshot())
    result = tool.call({})  # required arguments missing: an error result, never an exception
    assert not result.ok and result.error


def test_file_tools_share_one_root(tmp_path: Path) -> None:
    ctx = ToolContext(workdir=tmp_path, state={"files": {"t.csv": "a\n1\n2\n"}})
    tools = build_tools(["file_operator", "csv_processor"], ctx)
    assert tools["file_operator"].call({"action": "write", "path": "u.csv", "content": "a\n5\n"}).ok
    assert tools["csv_processor"].call({"file": "u.csv", "operation": "sum", "column": "a"}).content == {
        "result": 5.0
    }
    assert tools["csv_processor"].call({"file": "t.csv", "operation": "sum", "column": "a"}).content == {
        "result": 3.0
    }


def test_snapshots_of_a_full_set_are_json(tmp_path: Path) -> None:
    tools = build_tools(NAMES, ToolContext(workdir=tmp_path))
    snapshot = {name: tool.snapshot() for name, tool in tools.items()}
    assert json.loads(json.dumps(snapshot)) == snapshot
