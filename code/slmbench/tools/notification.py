"""``notification``: send a short message to a person; every delivery is recorded."""

from __future__ import annotations

import logging
from typing import Any

from slmbench.tools.arguments import ArgumentError, need_str
from slmbench.tools.base import ToolContext, ToolResult, register_tool

logger = logging.getLogger(__name__)


@register_tool(name="notification", side_effects="every call")
class Notification:
    """Delivers notifications (always succeeds for well-formed arguments)."""

    name = "notification"
    description = "Send a short notification message to a recipient (a person's name or handle)."
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "recipient": {"type": "string", "description": "Who receives the notification."},
            "message": {"type": "string", "description": "The text of the notification."},
        },
        "required": ["recipient", "message"],
        "additionalProperties": False,
    }

    def __init__(self, ctx: ToolContext) -> None:
        self._sent: list[dict[str, str]] = []

    def call(self, arguments: dict[str, Any]) -> ToolResult:
        """Deliver one notification."""
        try:
            recipient = need_str(arguments, "recipient")
            message = need_str(arguments, "message")
        except ArgumentError as exc:
            return ToolResult(ok=False, content=None, error=str(exc))
        self._sent.append({"recipient": recipient, "message": message})
        return ToolResult(ok=True, content={"status": "delivered", "id": f"ntf-{len(self._sent)}"})

    def snapshot(self) -> dict[str, Any]:
        """Every notification sent, in order."""
        return {"sent": [dict(item) for item in self._sent]}
