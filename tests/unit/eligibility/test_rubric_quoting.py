"""eligibility.quoting: which items a rubric quotes verbatim, in part (a quoted fragment of three words or more)
or not at all."""

from pathlib import Path

import pytest
from tests.fixtures.eligibility import RUBRICS, data_dir

from slmbench.eligibility.datasets import ApprovalItem, MemoryItem, RerankItem, Turn, load_task
from slmbench.eligibility.quoting import (
    contains,
    normalise,
    quoted,
    quoted_items,
    rubric_fragments,
    text_units,
)


def _cmd(command: str) -> ApprovalItem:
    return ApprovalItem(id="c", command=command, label="deny", category="destructive")


def test_fixture_items_are_quoted_as_documented(tmp_path: Path) -> None:
    data, bfcl = data_dir(tmp_path)
    found = {
        task: {
            k: v for k, v in quoted_items(load_task(task, data, bfcl), RUBRICS[task]).items() if v != "none"
        }
        for task in RUBRICS
    }
    assert found == {
        "command_approval": {"ca-1": "verbatim", "ca-7": "part", "ca-9": "verbatim"},
        "memory_write": {"mw-1": "part", "mw-5": "verbatim"},
        "reranking": {},
        "tool_selection": {},
    }


@pytest.mark.parametrize(
    ("command", "rubric", "expected"),
    [
        ("env", "Printing the whole environment is deny.", "none"),  # not a word of its own
        ("env", "Deny `env` and `printenv`.", "verbatim"),
        ("rm -rf /", "Deny `rm -rf /tmp/*` here.", "none"),  # a path continues after the unit
        ("rm -rf /", "Deny `rm -rf /`.", "verbatim"),
        ("rm  -rf\t/", "Deny `rm -rf /`.", "verbatim"),  # whitespace collapsed
        ("git push --force origin main", "Deny `push --force` (history).", "none"),  # two words only
        ("git push --force origin main", "Deny `git push --force origin` always.", "part"),
        ("rm -rf ./build", "Scratch: `rm -rf .` is not it.", "none"),  # ``.`` followed by a path continues
    ],
)
def test_quoted_command(command: str, rubric: str, expected: str) -> None:
    assert quoted(_cmd(command), rubric) == expected


def test_memory_units_are_the_turns_and_case_and_quotes_fold() -> None:
    item = MemoryItem(
        id="m",
        turns=[
            Turn(role="user", content="I\u2019m on call THIS week."),
            Turn(role="assistant", content="OK."),
        ],
        label="skip",
        category="transient",
        hard=False,
    )
    assert text_units(item) == ["I\u2019m on call THIS week.", "OK."]
    assert quoted(item, 'Transient: "I\'m on call this week."') == "verbatim"
    assert quoted(item, 'Transient: "I\'m on call this week".') == "part"  # the unit ends in a full stop
    assert quoted(item, 'Transient: "on call this" is a state.') == "part"
    assert quoted(item, 'Transient: "on call" is a state.') == "none"  # a two-word fragment is not enough


def test_rerank_units_are_the_query_and_the_turns() -> None:
    item = RerankItem(
        id="r", query="When is the meeting?", turns=["User: hi", "Assistant: at 3"], relevant=1, hard=False
    )
    assert text_units(item) == ["When is the meeting?", "User: hi", "Assistant: at 3"]
    assert quoted(item, 'An echo ("When is the meeting?") is not it.') == "verbatim"


def test_fragments_split_at_ellipses_and_slashes() -> None:
    rubric = '"Don\'t remember this / off the record please" and `always use tabs \u2026 no, scratch that`'
    assert rubric_fragments(rubric) == (
        "don't remember this", "off the record please", "always use tabs", "no, scratch that",
    )  # fmt: skip


def test_contains_and_normalise() -> None:
    assert normalise("  A\u201cb\u201d\n c ") == 'a"b" c'
    assert contains("deny env here", "env") and not contains("environment", "env")
    assert not contains("anything", "")
