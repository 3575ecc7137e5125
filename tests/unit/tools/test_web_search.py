"""Tests for the web_search tool."""

from __future__ import annotations

from pathlib import Path

import pytest

from slmbench.tools.base import ToolContext
from slmbench.tools.web_search import SNIPPET_CHARS, WebSearch, default_corpus, tokenize

CORPUS = [
    {
        "id": "t1",
        "title": "Eiffel Tower facts",
        "url": "https://e.example/1",
        "text": "The Eiffel Tower is 330 metres tall. " * 20,
    },
    {
        "id": "t2",
        "title": "Louvre opening hours",
        "url": "https://e.example/2",
        "text": "The Louvre opens at 9 am.",
    },
]


@pytest.fixture
def tool(tmp_path: Path) -> WebSearch:
    return WebSearch(ToolContext(workdir=tmp_path, state={"corpus": CORPUS}))


def test_tokenize() -> None:
    assert tokenize("How TALL is the Eiffel-Tower? 330m") == [
        "how",
        "tall",
        "is",
        "the",
        "eiffel",
        "tower",
        "330m",
    ]


def test_task_document_ranks_first_with_snippet(tool: WebSearch) -> None:
    result = tool.call({"query": "How tall is the Eiffel Tower?"})
    assert result.ok
    hits = result.content
    assert 1 <= len(hits) <= 3
    assert hits[0]["id"] == "t1"
    assert set(hits[0]) == {"id", "title", "url", "snippet"}
    assert hits[0]["snippet"] == CORPUS[0]["text"][:SNIPPET_CHARS]


def test_default_corpus_is_searched_too(tool: WebSearch) -> None:
    assert len(default_corpus()) >= 25
    assert len({doc["id"] for doc in default_corpus()}) == len(default_corpus())
    hits = tool.call({"query": "sourdough bread starter", "max_results": 1}).content
    assert [hit["id"] for hit in hits] == ["bg-cooking-bread"]


def test_max_results_and_no_match(tool: WebSearch) -> None:
    assert len(tool.call({"query": "the city weather", "max_results": 10}).content) == 10
    assert tool.call({"query": "qwxzv"}).content == []
    assert not tool.call({"query": "?!"}).ok
    assert "between 1 and 10" in tool.call({"query": "tower", "max_results": 50}).error
    assert not tool.call({"query": "tower", "max_results": "3"}).ok


def test_deterministic_and_snapshot(tmp_path: Path) -> None:
    runs = []
    for _ in range(2):
        tool = WebSearch(ToolContext(workdir=tmp_path, state={"corpus": CORPUS}))
        runs.append(
            [tool.call({"query": q, "max_results": 5}).content for q in ("louvre hours", "the weather")]
        )
        assert tool.snapshot() == {"queries": ["louvre hours", "the weather"]}
    assert runs[0] == runs[1]
