"""``knowledge_lookup``: look a topic up in the task's small encyclopedia, tolerating near-miss spellings."""

from __future__ import annotations

import difflib
import logging
from typing import Any

from slmbench.tools.arguments import ArgumentError, need_str
from slmbench.tools.base import ToolContext, ToolResult, register_tool

logger = logging.getLogger(__name__)

FUZZY_CUTOFF = 0.6


@register_tool(name="knowledge_lookup")
class KnowledgeLookup:
    """Exact (case-insensitive) topic match first, then the closest topic by ``difflib``."""

    name = "knowledge_lookup"
    description = "Look up a topic in the knowledge base and return its entry. Give the topic name only."
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "topic": {"type": "string", "description": "The topic to look up, e.g. 'Mount Fuji'."}
        },
        "required": ["topic"],
        "additionalProperties": False,
    }

    def __init__(self, ctx: ToolContext) -> None:
        knowledge = ctx.state.get("knowledge") or {}
        self._entries: dict[str, str] = {str(topic): str(text) for topic, text in knowledge.items()}
        self._lookups: list[str] = []

    def call(self, arguments: dict[str, Any]) -> ToolResult:
        """Return ``{"topic", "text"}`` of the matching entry."""
        try:
            topic = need_str(arguments, "topic")
        except ArgumentError as exc:
            return ToolResult(ok=False, content=None, error=str(exc))
        self._lookups.append(topic)
        match = self._match(topic)
        if match is None:
            return ToolResult(ok=False, content=None, error=f"no entry for {topic}")
        return ToolResult(ok=True, content={"topic": match, "text": self._entries[match]})

    def _match(self, topic: str) -> str | None:
        wanted = topic.strip().casefold()
        by_folded: dict[str, str] = {}
        for key in sorted(self._entries):  # sorted: ties resolve the same way every time
            by_folded.setdefault(key.strip().casefold(), key)
        if wanted in by_folded:
            return by_folded[wanted]
        close = difflib.get_close_matches(wanted, list(by_folded), n=1, cutoff=FUZZY_CUTOFF)
        return by_folded[close[0]] if close else None

    def snapshot(self) -> dict[str, Any]:
        """The topics asked for, in order."""
        return {"lookups": list(self._lookups)}
