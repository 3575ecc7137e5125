"""Tests for slmbench.harness.react: Action pairs, Final Answer, Observation cut and Thought text."""

from __future__ import annotations

import pytest

from slmbench.harness.react import clean_thought, cut_at_observation, final_answer, find_actions


def test_exact_action_pair() -> None:
    text = 'Thought: look\nAction: search\nAction Input: {"query": "a b"}\nmore'
    (action,) = find_actions(text, lenient=False)
    assert action.action == "search" and action.has_input and action.input_value == {"query": "a b"}
    assert action.issue == "" and action.input_error == ""
    assert text[action.start : action.end] == 'Action: search\nAction Input: {"query": "a b"}'


def test_multiline_input_and_two_actions() -> None:
    text = 'Action: a\nAction Input: {\n  "x": 1\n}\nAction: b\nAction Input: {}'
    first, second = find_actions(text, lenient=False)
    assert (first.action, first.input_value, second.action, second.input_value) == ("a", {"x": 1}, "b", {})


@pytest.mark.parametrize(
    ("text", "lenient", "value", "issue", "fixed"),
    [
        ("**Action:** search\n**Action Input:** {'q': 1}", True, {"q": 1}, "", True),
        ('action: search\naction_input: {"q": 1}', True, {"q": 1}, "", False),
        ('Action: search\nAction Input: ```json\n{"q": 1}\n```', True, {"q": 1}, "code fence", False),
        ('Action: search\nAction Input: ```json\n{"q": 1}\n```', False, {"q": 1}, "code fence", False),
        ('Action: search\n{"q": 1}', True, {"q": 1}, "missing", False),
        ('Action: search\nThought: hm\nAction Input: {"q": 1}', False, {"q": 1}, "between", False),
        ('Action: search\nAction Input: "{\\"q\\": 1}"', False, '{"q": 1}', "", False),
    ],
)
def test_lenient_and_irregular_pairs(
    text: str, lenient: bool, value: object, issue: str, fixed: bool
) -> None:
    (action,) = find_actions(text, lenient)
    assert action.action == "search" and action.has_input and action.input_value == value
    assert (issue in action.issue) if issue else action.issue == ""
    assert action.json_fixed == fixed


def test_strict_patterns_ignore_decorated_lines() -> None:
    assert find_actions("**Action:** search\n**Action Input:** {}", lenient=False) == []


@pytest.mark.parametrize(
    ("text", "error"),
    [('Action: s\nAction Input: {"q": 1', "not closed"), ("Action: s\nAction Input: q=1", "Expecting")],
)
def test_unparseable_inputs(text: str, error: str) -> None:
    (action,) = find_actions(text, lenient=True)
    assert action.has_input and error in action.input_error


def test_action_without_input() -> None:
    (action,) = find_actions("Action: search\nI will wait.", lenient=True)
    assert not action.has_input and action.action == "search"


@pytest.mark.parametrize(
    ("text", "lenient", "expected"),
    [
        ("Thought: ok\nFinal Answer: 42\n", False, (12, "42")),
        ("final answer: 42", False, None),
        ("**Final Answer:** 42", True, (0, "42")),
        ("nothing here", True, None),
    ],
)
def test_final_answer(text: str, lenient: bool, expected: tuple[int, str] | None) -> None:
    assert final_answer(text, lenient) == expected


def test_cut_at_observation() -> None:
    text = "Action: a\nAction Input: {}\nObservation: fake\nFinal Answer: x"
    assert cut_at_observation(text, lenient=False) == "Action: a\nAction Input: {}\n"
    assert (
        cut_at_observation("Observation: before any action", lenient=False)
        == "Observation: before any action"
    )


@pytest.mark.parametrize(
    ("text", "thought"),
    [("Thought: I need data\n", "I need data"), ("**Thought:** x", "x"), ("plan\n```json", "plan"), ("", "")],
)
def test_clean_thought(text: str, thought: str) -> None:
    assert clean_thought(text) == thought
