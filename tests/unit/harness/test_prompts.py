"""Tests for slmbench.harness.prompts: the scaffold prompts and observation messages."""

from __future__ import annotations

from typing import Any

from slmbench.harness.parser import parse_output
from slmbench.harness.prompts import REACT_STOP, observation_message, system_prompt

SEARCH: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "search",
        "description": "Search the notes.",
        "parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
    },
}


def test_native_prompt_shows_the_strict_format() -> None:
    text = system_prompt([SEARCH], "native")
    assert (
        '<tool_call>{"name": "<tool name>", "arguments": {<arguments as a JSON object>}}</tool_call>' in text
    )
    assert "- search: Search the notes." in text and '"required": ["query"]' in text
    assert "one tool per turn" in text and len(text) < 1500


def test_react_prompt_lists_protocol_and_tools() -> None:
    text = system_prompt([SEARCH], "react")
    for line in (
        "Thought:",
        "Action: the tool name, one of [search]",
        "Action Input:",
        "Observation:",
        "Final Answer:",
    ):
        assert line in text
    assert len(text) < 1500 and REACT_STOP == ("\nObservation:",)


def test_prompt_example_parses_strictly() -> None:
    tools = {"search": SEARCH["function"]["parameters"]}
    text = '<tool_call>{"name": "search", "arguments": {"query": "x"}}</tool_call>'
    assert parse_output(text, [], tools, "strict", "native").accepted[0].arguments == {"query": "x"}


def test_empty_tool_list() -> None:
    assert "(none)" in system_prompt([], "native")


def test_observation_messages() -> None:
    assert observation_message("ok", "native") == {"role": "tool", "content": "ok"}
    assert observation_message("ok", "native", name="search") == {
        "role": "tool",
        "content": "ok",
        "name": "search",
    }
    assert observation_message("ok", "native", plain=True) == {"role": "user", "content": "Observation: ok"}
    assert observation_message("ok", "react") == {"role": "user", "content": "Observation: ok"}
