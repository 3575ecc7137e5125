"""Tests for slmbench.harness.scaffolds: one object per scaffold, registered under its vocabulary name."""

from __future__ import annotations

from typing import get_args

import pytest

from slmbench.config import StudyConfig
from slmbench.harness.parser import parse_output
from slmbench.harness.scaffolds import Scaffold, get_scaffold, scaffold_names
from slmbench.run.cli import run
from slmbench.vocab import SCAFFOLDS

TOOLS = {"search": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}}


def test_the_registry_covers_the_vocabulary_exactly() -> None:
    assert scaffold_names() == SCAFFOLDS
    for name in SCAFFOLDS:
        scaffold = get_scaffold(name)
        assert isinstance(scaffold, Scaffold) and scaffold.name == name
        assert get_scaffold(scaffold) is scaffold


def test_cli_and_config_choices_are_the_registry() -> None:
    option = next(p for p in run.params if p.name == "scaffold")
    assert tuple(option.type.choices) == scaffold_names()  # type: ignore[attr-defined]
    assert get_args(StudyConfig.model_fields["scaffold"].annotation) == scaffold_names()
    with pytest.raises(ValueError, match="unknown scaffold 'chat'"):
        get_scaffold("chat")


@pytest.mark.parametrize("name", SCAFFOLDS)
def test_each_scaffold_accepts_the_call_it_writes(name: str) -> None:
    """The call shape a scaffold writes into the history is the one its strict parser accepts."""
    scaffold = get_scaffold(name)
    text = scaffold.call_as_text("search", {"query": "x"})
    outcome = parse_output(text, [], TOOLS, "strict", scaffold)
    assert [a.call.surface for a in outcome.accepted] == [scaffold.expected_surfaces[-1]]
    assert outcome.accepted[0].arguments == {"query": "x"} and not outcome.refusals


def test_native_history_renders_structured_calls_and_tool_messages() -> None:
    native = get_scaffold("native")
    turn = native.history("raw", [("c1", "search", {"query": "x"})], [("search", "found")], True, True)
    assert turn == [
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "search", "arguments": {"query": "x"}}}
            ],
        },
        {"role": "tool", "content": "found", "name": "search", "tool_call_id": "c1"},
    ]
    legacy = native.history("raw", [("c1", "search", {"query": "x"})], [("search", "found")], True, False)
    assert legacy == [{"role": "assistant", "content": "raw"}, {"role": "tool", "content": "found"}]


def test_react_history_writes_action_lines_and_plain_observations() -> None:
    react = get_scaffold("react")
    assert not react.sends_native_tools and react.stop == ("\nObservation:",)
    turn = react.history(
        "raw", [("c1", "search", {"query": "x"})], [("search", "found"), (None, "no")], False, True
    )
    assert turn == [
        {"role": "assistant", "content": 'Action: search\nAction Input: {"query": "x"}'},
        {"role": "user", "content": "Observation: [search] found\nno"},
    ]
    assert react.missing_call(strict=False) is None and "Action: <tool name>" in (
        react.missing_call(True) or ""
    )
