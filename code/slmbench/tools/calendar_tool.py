"""``calendar``: list, create and delete events in the task's calendar."""

from __future__ import annotations

import copy
import logging
import re
from datetime import datetime
from typing import Any

from slmbench.tools.arguments import ArgumentError, get_choice, get_str, get_str_list, need_str
from slmbench.tools.base import ToolContext, ToolResult, register_tool

logger = logging.getLogger(__name__)

ACTIONS = ("list", "create", "delete")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_TIME = re.compile(r"^\d{2}:\d{2}$")


def check_date(value: str) -> str:
    """``value`` if it is a real calendar date written YYYY-MM-DD."""
    try:
        if not _DATE.match(value):
            raise ValueError
        datetime.strptime(value, "%Y-%m-%d")
    except ValueError:
        raise ArgumentError(f"date must be a valid date in the form YYYY-MM-DD (got {value!r})") from None
    return value


def check_time(value: str, key: str) -> str:
    """``value`` if it is a 24-hour time written HH:MM."""
    try:
        if not _TIME.match(value):
            raise ValueError
        datetime.strptime(value, "%H:%M")
    except ValueError:
        raise ArgumentError(f"{key} must be a 24-hour time in the form HH:MM (got {value!r})") from None
    return value


def _sort_key(event: dict[str, Any]) -> tuple[str, str, str]:
    return (str(event.get("date", "")), str(event.get("start", "")), str(event.get("id", "")))


@register_tool(name="calendar", side_effects={"argument": "action", "actions": ("create", "delete")})
class Calendar:
    """Events ``{id, title, date, start, end, attendees}`` from ``state["calendar"]["events"]``."""

    name = "calendar"
    description = (
        "Manage calendar events. action 'list' shows events (optionally only on 'date'); 'create' adds an "
        "event (needs date YYYY-MM-DD, title, start HH:MM; end and attendees optional); 'delete' removes "
        "the event with 'event_id'."
    )
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": list(ACTIONS)},
            "date": {"type": "string", "description": "Date as YYYY-MM-DD."},
            "title": {"type": "string", "description": "Event title (action 'create')."},
            "start": {"type": "string", "description": "Start time as HH:MM, 24-hour."},
            "end": {"type": "string", "description": "End time as HH:MM, 24-hour."},
            "attendees": {"type": "array", "items": {"type": "string"}, "description": "Who attends."},
            "event_id": {"type": "string", "description": "Id of the event to delete, e.g. 'evt-2'."},
        },
        "required": ["action"],
        "additionalProperties": False,
    }

    def __init__(self, ctx: ToolContext) -> None:
        calendar = ctx.state.get("calendar") or {}
        self._events: list[dict[str, Any]] = copy.deepcopy(list(calendar.get("events") or []))
        self._next = len(self._events) + 1

    def call(self, arguments: dict[str, Any]) -> ToolResult:
        """Run one action."""
        try:
            action = get_choice(arguments, "action", ACTIONS)
            if action == "list":
                return self._list(arguments)
            if action == "create":
                return self._create(arguments)
            return self._delete(need_str(arguments, "event_id").strip())
        except ArgumentError as exc:
            return ToolResult(ok=False, content=None, error=str(exc))

    def _list(self, arguments: dict[str, Any]) -> ToolResult:
        date = get_str(arguments, "date")
        events = (
            self._events if date is None else [e for e in self._events if e.get("date") == check_date(date)]
        )
        return ToolResult(ok=True, content=copy.deepcopy(sorted(events, key=_sort_key)))

    def _create(self, arguments: dict[str, Any]) -> ToolResult:
        date = check_date(need_str(arguments, "date").strip())
        title = need_str(arguments, "title").strip()
        start = check_time(need_str(arguments, "start").strip(), "start")
        end_arg = get_str(arguments, "end")
        end = check_time(end_arg.strip(), "end") if end_arg else None
        if end is not None and end <= start:
            raise ArgumentError(f"end ({end}) must be after start ({start})")
        taken = {str(event.get("id")) for event in self._events}
        while f"evt-{self._next}" in taken:
            self._next += 1
        event = {
            "id": f"evt-{self._next}",
            "title": title,
            "date": date,
            "start": start,
            "end": end,
            "attendees": get_str_list(arguments, "attendees"),
        }
        self._next += 1
        self._events.append(event)
        return ToolResult(ok=True, content=copy.deepcopy(event))

    def _delete(self, event_id: str) -> ToolResult:
        for index, event in enumerate(self._events):
            if str(event.get("id")) == event_id:
                del self._events[index]
                return ToolResult(ok=True, content={"deleted": event_id})
        return ToolResult(ok=False, content=None, error=f"no event with id {event_id!r}")

    def snapshot(self) -> dict[str, Any]:
        """All events, sorted by (date, start, id)."""
        return {"events": copy.deepcopy(sorted(self._events, key=_sort_key))}
