"""Tests for the knowledge_lookup tool."""

from __future__ import annotations

from pathlib import Path

import pytest

from slmbench.tools.base import ToolContext
from slmbench.tools.knowledge_lookup import KnowledgeLookup

KNOWLEDGE = {
    "Mount Fuji": "Mount Fuji is 3,776 m high.",
    "Lake Baikal": "Lake Baikal is the deepest lake.",
    "Python (language)": "A programming language.",
}


@pytest.fixture
def tool(tmp_path: Path) -> KnowledgeLookup:
    return KnowledgeLookup(ToolContext(workdir=tmp_path, state={"knowledge": KNOWLEDGE}))


def test_exact_match_is_case_insensitive(tool: KnowledgeLookup) -> None:
    result = tool.call({"topic": "  mount FUJI "})
    assert result.ok
    assert result.content == {"topic": "Mount Fuji", "text": "Mount Fuji is 3,776 m high."}


def test_fuzzy_match_for_near_misses(tool: KnowledgeLookup) -> None:
    assert tool.call({"topic": "Lake Baical"}).content["topic"] == "Lake Baikal"
    assert tool.call({"topic": "mt fuji"}).content["topic"] == "Mount Fuji"


def test_unknown_topic(tool: KnowledgeLookup) -> None:
    result = tool.call({"topic": "Sahara"})
    assert not result.ok
    assert result.error == "no entry for Sahara"


def test_empty_state_and_bad_argument(tmp_path: Path) -> None:
    tool = KnowledgeLookup(ToolContext(workdir=tmp_path))
    assert tool.call({"topic": "x"}).error == "no entry for x"
    assert not tool.call({"topic": 3}).ok


def test_snapshot_and_determinism(tmp_path: Path) -> None:
    answers = []
    for _ in range(2):
        tool = KnowledgeLookup(ToolContext(workdir=tmp_path, state={"knowledge": KNOWLEDGE}))
        answers.append([tool.call({"topic": t}).content for t in ("fuji", "baikal", "python")])
        assert tool.snapshot() == {"lookups": ["fuji", "baikal", "python"]}
    assert answers[0] == answers[1]
