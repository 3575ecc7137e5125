"""``email``: read the task's inbox, search it, and send messages (recorded, never delivered)."""

from __future__ import annotations

import copy
import logging
import re
from typing import Any

from slmbench.tools.arguments import ArgumentError, get_choice, get_str, need_str
from slmbench.tools.base import ToolContext, ToolResult, register_tool

logger = logging.getLogger(__name__)

ACTIONS = ("inbox", "search", "send")
ADDRESS = re.compile(r"^[^@\s,;<>\"]+@[^@\s,;<>\"]+\.[A-Za-z]{2,}$")
_SHOWN = ("id", "from", "subject", "date", "body")


@register_tool(name="email", side_effects={"argument": "action", "actions": ("send",)})
class Email:
    """An inbox from ``state["inbox"]`` plus an outbox of sent messages."""

    name = "email"
    description = (
        "Work with the user's email. action 'inbox' lists messages newest first; 'search' finds messages "
        "whose sender, subject or body contains 'query'; 'send' sends a message (needs to, subject, body)."
    )
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": list(ACTIONS)},
            "query": {"type": "string", "description": "Text to search for (action 'search')."},
            "to": {"type": "string", "description": "Recipient email address (action 'send')."},
            "subject": {"type": "string", "description": "Subject line (action 'send')."},
            "body": {"type": "string", "description": "Message text (action 'send')."},
        },
        "required": ["action"],
        "additionalProperties": False,
    }

    def __init__(self, ctx: ToolContext) -> None:
        self._inbox: list[dict[str, Any]] = copy.deepcopy(list(ctx.state.get("inbox") or []))
        self._sent: list[dict[str, str]] = []

    def call(self, arguments: dict[str, Any]) -> ToolResult:
        """Run one action."""
        try:
            action = get_choice(arguments, "action", ACTIONS)
            if action == "inbox":
                return ToolResult(ok=True, content=self._newest_first(self._inbox))
            if action == "search":
                return ToolResult(ok=True, content=self._search(need_str(arguments, "query")))
            return self._send(arguments)
        except ArgumentError as exc:
            return ToolResult(ok=False, content=None, error=str(exc))

    @staticmethod
    def _newest_first(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        ordered = sorted(messages, key=lambda m: (str(m.get("date", "")), str(m.get("id", ""))), reverse=True)
        return [{key: message.get(key, "") for key in _SHOWN} for message in ordered]

    def _search(self, query: str) -> list[dict[str, Any]]:
        needle = query.strip().casefold()
        found = [
            message
            for message in self._inbox
            if any(needle in str(message.get(key, "")).casefold() for key in ("from", "subject", "body"))
        ]
        return self._newest_first(found)

    def _send(self, arguments: dict[str, Any]) -> ToolResult:
        to = need_str(arguments, "to").strip()
        subject = get_str(arguments, "subject", required=True) or ""
        body = need_str(arguments, "body")
        if not ADDRESS.match(to):
            raise ArgumentError(f"'{to}' is not a valid email address")
        self._sent.append({"to": to, "subject": subject, "body": body})
        return ToolResult(ok=True, content={"status": "sent", "id": f"sent-{len(self._sent)}"})

    def snapshot(self) -> dict[str, Any]:
        """The (unchanged) inbox and every message sent, in order."""
        return {"inbox": copy.deepcopy(self._inbox), "sent": [dict(message) for message in self._sent]}
