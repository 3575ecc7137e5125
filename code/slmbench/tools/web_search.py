"""``web_search``: BM25 search over the task's documents plus a shipped distractor corpus."""

from __future__ import annotations

import functools
import importlib.resources
import logging
import re
from typing import Any

from rank_bm25 import BM25Okapi

from slmbench.tools.arguments import ArgumentError, get_int, need_str
from slmbench.tools.base import ToolContext, ToolResult, register_tool
from slmbench.yamltext import safe_load

logger = logging.getLogger(__name__)

SNIPPET_CHARS = 300
_WORD = re.compile(r"[a-z0-9]+")


def tokenize(text: str) -> list[str]:
    """Lowercase alphanumeric words."""
    return _WORD.findall(text.lower())


@functools.cache
def default_corpus() -> tuple[dict[str, str], ...]:
    """The shipped distractor documents (``tools/data/corpus.yaml``)."""
    source = importlib.resources.files("slmbench.tools").joinpath("data/corpus.yaml").read_text("utf-8")
    documents = safe_load(source)["documents"]
    return tuple({key: str(doc[key]) for key in ("id", "title", "url", "text")} for doc in documents)


@register_tool(name="web_search")
class WebSearch:
    """Ranks ``state["corpus"]`` and the default corpus with ``BM25Okapi`` over title + text."""

    name = "web_search"
    description = "Search the web. Returns the most relevant pages with a title, URL and snippet."
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "Search words."},
            "max_results": {"type": "integer", "minimum": 1, "maximum": 10, "default": 3},
        },
        "required": ["query"],
        "additionalProperties": False,
    }

    def __init__(self, ctx: ToolContext) -> None:
        task_docs = [
            {key: str(doc.get(key, "")) for key in ("id", "title", "url", "text")}
            for doc in ctx.state.get("corpus") or []
        ]
        self._documents = task_docs + [dict(doc) for doc in default_corpus()]
        self._index = BM25Okapi([tokenize(f"{doc['title']} {doc['text']}") for doc in self._documents])
        self._queries: list[str] = []

    def call(self, arguments: dict[str, Any]) -> ToolResult:
        """Return up to ``max_results`` hits ``{id, title, url, snippet}``, best first."""
        try:
            query = need_str(arguments, "query")
            limit = get_int(arguments, "max_results", 3, low=1, high=10)
        except ArgumentError as exc:
            return ToolResult(ok=False, content=None, error=str(exc))
        self._queries.append(query)
        words = tokenize(query)
        if not words:
            return ToolResult(ok=False, content=None, error="query has no searchable words")
        scores = self._index.get_scores(words)
        ranked = sorted(range(len(self._documents)), key=lambda i: (-float(scores[i]), i))
        hits = [i for i in ranked if scores[i] > 0][:limit]
        return ToolResult(ok=True, content=[self._hit(self._documents[i]) for i in hits])

    @staticmethod
    def _hit(doc: dict[str, str]) -> dict[str, str]:
        return {
            "id": doc["id"],
            "title": doc["title"],
            "url": doc["url"],
            "snippet": doc["text"][:SNIPPET_CHARS],
        }

    def snapshot(self) -> dict[str, Any]:
        """The queries issued, in order."""
        return {"queries": list(self._queries)}
