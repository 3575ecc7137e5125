"""Tests for the calendar tool."""

from __future__ import annotations

from pathlib import Path

import pytest

from slmbench.tools.base import ToolContext
from slmbench.tools.calendar_tool import Calendar

EVENTS = [
    {
        "id": "evt-1",
        "title": "Standup",
        "date": "2025-03-04",
        "start": "09:00",
        "end": "09:15",
        "attendees": ["a"],
    },
    {
        "id": "evt-2",
        "title": "Review",
        "date": "2025-03-03",
        "start": "14:00",
        "end": "15:00",
        "attendees": [],
    },
]


@pytest.fixture
def cal(tmp_path: Path) -> Calendar:
    return Calendar(ToolContext(workdir=tmp_path, state={"calendar": {"events": EVENTS}}))


def test_list_sorted_and_filtered(cal: Calendar) -> None:
    assert [e["id"] for e in cal.call({"action": "list"}).content] == ["evt-2", "evt-1"]
    assert [e["id"] for e in cal.call({"action": "list", "date": "2025-03-04"}).content] == ["evt-1"]
    assert cal.call({"action": "list", "date": "2025-01-01"}).content == []


def test_create_numbers_from_existing_events(cal: Calendar) -> None:
    result = cal.call(
        {"action": "create", "date": "2025-03-05", "title": "Lunch", "start": "12:00", "attendees": ["Kim"]}
    )
    assert result.ok, result.error
    assert result.content == {
        "id": "evt-3",
        "title": "Lunch",
        "date": "2025-03-05",
        "start": "12:00",
        "end": None,
        "attendees": ["Kim"],
    }
    assert (
        cal.call({"action": "create", "date": "2025-03-05", "title": "B", "start": "13:00"}).content["id"]
        == "evt-4"
    )


def test_ids_stay_unique_after_delete(cal: Calendar) -> None:
    cal.call({"action": "create", "date": "2025-03-05", "title": "A", "start": "10:00"})
    assert cal.call({"action": "delete", "event_id": "evt-3"}).content == {"deleted": "evt-3"}
    created = cal.call({"action": "create", "date": "2025-03-05", "title": "B", "start": "10:00"}).content
    assert created["id"] == "evt-4"


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"action": "create", "date": "2025-02-30", "title": "x", "start": "10:00"}, "YYYY-MM-DD"),
        ({"action": "create", "date": "03/05/2025", "title": "x", "start": "10:00"}, "YYYY-MM-DD"),
        ({"action": "create", "date": "2025-03-05", "title": "x", "start": "25:00"}, "HH:MM"),
        ({"action": "create", "date": "2025-03-05", "title": "x", "start": "9am"}, "HH:MM"),
        (
            {"action": "create", "date": "2025-03-05", "title": "x", "start": "10:00", "end": "09:00"},
            "after start",
        ),
        ({"action": "create", "date": "2025-03-05", "start": "10:00"}, "title"),
        (
            {"action": "create", "date": "2025-03-05", "title": "x", "start": "10:00", "attendees": "Kim"},
            "list",
        ),
        ({"action": "delete"}, "event_id"),
        ({"action": "delete", "event_id": "evt-99"}, "no event"),
        ({"action": "list", "date": "tomorrow"}, "YYYY-MM-DD"),
        ({"action": "move"}, "must be one of"),
    ],
)
def test_errors_leave_state_unchanged(cal: Calendar, arguments: dict[str, object], message: str) -> None:
    before = cal.snapshot()
    result = cal.call(arguments)
    assert not result.ok
    assert message in result.error
    assert cal.snapshot() == before


def test_snapshot_does_not_alias_state(tmp_path: Path) -> None:
    state = {"calendar": {"events": [dict(e) for e in EVENTS]}}
    cal = Calendar(ToolContext(workdir=tmp_path, state=state))
    cal.call({"action": "delete", "event_id": "evt-1"})
    cal.snapshot()["events"].clear()
    assert len(state["calendar"]["events"]) == 2
    assert [e["id"] for e in cal.snapshot()["events"]] == ["evt-2"]


def test_empty_state_and_determinism(tmp_path: Path) -> None:
    snapshots = []
    for _ in range(2):
        cal = Calendar(ToolContext(workdir=tmp_path))
        assert cal.call({"action": "list"}).content == []
        cal.call({"action": "create", "date": "2025-01-02", "title": "A", "start": "08:00", "end": "09:00"})
        snapshots.append(cal.snapshot())
    assert snapshots[0] == snapshots[1]
    assert snapshots[0]["events"][0]["id"] == "evt-1"
