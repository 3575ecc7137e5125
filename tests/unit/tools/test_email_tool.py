"""Tests for the email tool."""

from __future__ import annotations

from pathlib import Path

import pytest

from slmbench.tools.base import ToolContext
from slmbench.tools.email_tool import Email

INBOX = [
    {
        "id": "m1",
        "from": "ana@example.com",
        "to": "me@example.com",
        "subject": "Invoice 42",
        "body": "Due Friday.",
        "date": "2025-03-01T09:00",
    },
    {
        "id": "m2",
        "from": "bo@example.com",
        "to": "me@example.com",
        "subject": "Lunch?",
        "body": "Pizza at noon",
        "date": "2025-03-02T11:00",
    },
]


@pytest.fixture
def mail(tmp_path: Path) -> Email:
    return Email(ToolContext(workdir=tmp_path, state={"inbox": INBOX}))


def test_inbox_newest_first_without_to(mail: Email) -> None:
    messages = mail.call({"action": "inbox"}).content
    assert [m["id"] for m in messages] == ["m2", "m1"]
    assert set(messages[0]) == {"id", "from", "subject", "date", "body"}


def test_search_is_case_insensitive_over_from_subject_body(mail: Email) -> None:
    assert [m["id"] for m in mail.call({"action": "search", "query": "INVOICE"}).content] == ["m1"]
    assert [m["id"] for m in mail.call({"action": "search", "query": "bo@"}).content] == ["m2"]
    assert [m["id"] for m in mail.call({"action": "search", "query": "pizza"}).content] == ["m2"]
    assert mail.call({"action": "search", "query": "me@example.com"}).content == []
    assert not mail.call({"action": "search"}).ok


def test_send_records_and_numbers(mail: Email) -> None:
    first = mail.call(
        {"action": "send", "to": "ana@example.com", "subject": "Re: Invoice 42", "body": "Paid."}
    )
    assert first.ok and first.content["id"] == "sent-1"
    assert (
        mail.call({"action": "send", "to": "bo@example.com", "subject": "Re", "body": "Yes"}).content["id"]
        == "sent-2"
    )
    snap = mail.snapshot()
    assert snap["inbox"] == INBOX
    assert snap["sent"][0] == {"to": "ana@example.com", "subject": "Re: Invoice 42", "body": "Paid."}


@pytest.mark.parametrize(
    "to", ["ana", "ana@", "@example.com", "ana@example", "a b@example.com", "a@x.com, b@y.com"]
)
def test_send_refuses_bad_addresses(mail: Email, to: str) -> None:
    result = mail.call({"action": "send", "to": to, "subject": "s", "body": "b"})
    assert not result.ok and "not a valid email address" in result.error
    assert mail.snapshot()["sent"] == []


def test_send_needs_all_fields(mail: Email) -> None:
    assert "body" in mail.call({"action": "send", "to": "a@b.com", "subject": "s"}).error
    assert "subject" in mail.call({"action": "send", "to": "a@b.com", "body": "b"}).error
    assert "must be one of" in mail.call({"action": "archive"}).error


def test_empty_state_and_determinism(tmp_path: Path) -> None:
    outputs = []
    for _ in range(2):
        mail = Email(ToolContext(workdir=tmp_path, state={"inbox": INBOX}))
        outputs.append(
            (mail.call({"action": "inbox"}).content, mail.call({"action": "search", "query": "a"}).content)
        )
    assert outputs[0] == outputs[1]
    assert Email(ToolContext(workdir=tmp_path)).call({"action": "inbox"}).content == []
