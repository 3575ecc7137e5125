"""Tests for the notification tool."""

from __future__ import annotations

from pathlib import Path

from slmbench.tools.base import ToolContext
from slmbench.tools.notification import Notification


def test_delivers_and_records(tmp_path: Path) -> None:
    tool = Notification(ToolContext(workdir=tmp_path))
    first = tool.call({"recipient": "Dana", "message": "Build finished"})
    second = tool.call({"recipient": "Lee", "message": "Meeting moved"})
    assert first.ok and first.content == {"status": "delivered", "id": "ntf-1"}
    assert second.content["id"] == "ntf-2"
    assert tool.snapshot() == {
        "sent": [
            {"recipient": "Dana", "message": "Build finished"},
            {"recipient": "Lee", "message": "Meeting moved"},
        ]
    }


def test_missing_or_empty_fields_are_refused_and_not_recorded(tmp_path: Path) -> None:
    tool = Notification(ToolContext(workdir=tmp_path))
    assert "message" in tool.call({"recipient": "Dana"}).error
    assert "must not be empty" in tool.call({"recipient": " ", "message": "hi"}).error
    assert not tool.call({"recipient": ["Dana"], "message": "hi"}).ok
    assert tool.snapshot() == {"sent": []}
