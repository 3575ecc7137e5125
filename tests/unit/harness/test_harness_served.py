"""What a server's tool-call parser made of the raw text, against our parser's reading of the same text."""

from __future__ import annotations

import json

import pytest

from slmbench.harness.served import CallDiff, compare, read_calls, response_diff, trial_schemas
from slmbench.records import schema as rec

CALC = "calculator"
SCHEMAS = trial_schemas([CALC, "web_search"], "native", {})


def _tag(name: str, arguments: dict[str, object]) -> str:
    return f"<tool_call>\n{json.dumps({'name': name, 'arguments': arguments})}\n</tool_call>"


def _native(name: str, arguments: dict[str, object]) -> dict[str, object]:
    return {
        "id": "call_1",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }


def _response(server_text: str | None, *native: dict[str, object]) -> rec.ModelResponse:
    return rec.ModelResponse(
        t=0.0, turn=1, raw_text="", native_tool_calls=list(native), server_text=server_text
    )


@pytest.mark.parametrize(
    ("ours", "theirs", "expected"),
    [
        ([("a", "{}"), ("b", "{}")], [("a", "{}"), ("b", "{}")], CallDiff(2, 2, 2, 0, 0, 0)),
        ([("a", "{}"), ("b", "{}")], [("b", "{}")], CallDiff(1, 2, 1, 0, 1, 0)),  # a dropped
        ([("a", "{}")], [("a", '{"x": 1}')], CallDiff(1, 1, 0, 1, 0, 0)),  # arguments changed
        (
            [("a", "{}")],
            [("c", "{}"), ("a", "{}")],
            CallDiff(2, 1, 1, 0, 0, 1),
        ),  # c added, a matched out of order
        (
            [("a", "{}"), ("b", "{}")],
            [("c", "{}")],
            CallDiff(1, 2, 0, 1, 1, 0),
        ),  # in order: a->c changed, b dropped
        ([], [], CallDiff()),
    ],
)
def test_calls_are_matched_equal_first_then_in_order(
    ours: list[tuple[str, str]], theirs: list[tuple[str, str]], expected: CallDiff
) -> None:
    assert compare(ours, theirs, len(theirs)) == expected


def test_a_call_the_server_parsed_is_kept_and_one_it_left_in_the_content_is_dropped() -> None:
    raw = _tag(CALC, {"expression": "2+2"})
    assert response_diff(_response(raw, _native(CALC, {"expression": "2+2"})), SCHEMAS, "native") == CallDiff(
        1, 1, 1, 0, 0, 0
    )
    bare = json.dumps(
        {"name": CALC, "arguments": {"expression": "2+2"}}
    )  # no tags: the server returns content
    assert response_diff(_response(bare), SCHEMAS, "native") == CallDiff(0, 1, 0, 0, 1, 0)


def test_another_name_or_other_arguments_from_the_server_are_changes() -> None:
    raw = _tag(CALC, {"expression": "2+2"}) + "\n" + _tag("web_search", {"query": "lake"})
    diff = response_diff(
        _response(raw, _native(CALC, {"expression": "2*2"}), _native("web_search", {"query": "lake"})),
        SCHEMAS,
        "native",
    )
    assert diff == CallDiff(returned=2, raw=2, kept=1, changed=1, dropped=0, added=0)


def test_without_raw_text_there_is_nothing_to_compare() -> None:
    assert response_diff(_response(None, _native(CALC, {"expression": "1"})), SCHEMAS, "native") is None


def test_both_readings_go_through_the_same_repairs() -> None:
    """A misspelt name is read as the tool on both sides: only extraction differs."""
    raw = _tag("Calculator", {"expression": "1"})
    diff = response_diff(_response(raw, _native("Calculator", {"expression": "1"})), SCHEMAS, "native")
    assert diff == CallDiff(1, 1, 1, 0, 0, 0)
    assert read_calls(raw, [], SCHEMAS, "native") == [(CALC, '{"expression": "1"}')]


def test_the_answer_tool_is_judged_where_the_trial_had_it() -> None:
    assert "final_answer" in trial_schemas([CALC], "native", {"answer_channel": True})
    assert "final_answer" not in trial_schemas([CALC], "native", {})
    react_line = {"answer_channel": True, "answer_line": True}
    assert "final_answer" not in trial_schemas([CALC], "react", {"name": "full-react", **react_line})
    assert "final_answer" in trial_schemas([CALC], "native", {"name": "full", **react_line})
