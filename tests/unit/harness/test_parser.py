"""Tests for slmbench.harness.parser: each surface form in both modes and scaffolds, each refusal code."""

# ruff: noqa: E501  (the case tables keep one case per line)

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from tests.fixtures.parser_tools import TOOLS

from slmbench.harness.parser import AcceptedCall, ParseOutcome, parse_output

ARGS = {"query": "cats"}
CALL = json.dumps({"name": "search", "arguments": ARGS})


def parse(text: str, mode: str, scaffold: str, native: list[dict[str, Any]] | None = None) -> ParseOutcome:
    return parse_output(text, native or [], TOOLS, mode, scaffold)  # type: ignore[arg-type]


def only_call(outcome: ParseOutcome) -> AcceptedCall:
    assert not outcome.refusals, outcome.refusals
    assert len(outcome.accepted) == 1, outcome
    return outcome.accepted[0]


# (id, text, surface, strict code in native scaffold, strict code in react scaffold); None = accepted.
SURFACES = [
    ("tag", f"<tool_call>{CALL}</tool_call>", "tool_call_tag", None, "wrong_wrapper"),
    ("tag_multiline", f"Let me look.\n<tool_call>\n{CALL}\n</tool_call>", "tool_call_tag", None, "wrong_wrapper"),
    ("fenced", f"```json\n{CALL}\n```", "fenced_json", "wrong_wrapper", "wrong_wrapper"),
    ("fenced_no_lang", f"```\n{CALL}\n```", "fenced_json", "wrong_wrapper", "wrong_wrapper"),
    ("bare", f"I will search. {CALL}", "bare_json", "wrong_wrapper", "wrong_wrapper"),
    ("react", f"Thought: x\nAction: search\nAction Input: {json.dumps(ARGS)}", "react", "wrong_wrapper", None),
    ("kwargs", 'search(query="cats")', "function_syntax", "wrong_wrapper", "wrong_wrapper"),
    ("json_in_parens", 'search({"query": "cats"})', "function_syntax", "wrong_wrapper", "wrong_wrapper"),
    ("function_tag", '<function=search>{"query": "cats"}</function>', "function_syntax", "wrong_wrapper", "wrong_wrapper"),
    ("tool_parameters", '<tool_call>{"tool": "search", "parameters": {"query": "cats"}}</tool_call>', "tool_call_tag", "wrong_keys", "wrong_wrapper"),
    ("function_args", '<tool_call>{"function": "search", "args": {"query": "cats"}}</tool_call>', "tool_call_tag", "wrong_keys", "wrong_wrapper"),
    ("tool_name_input", '{"tool_name": "search", "input": {"query": "cats"}}', "bare_json", "wrong_wrapper", "wrong_wrapper"),
    ("openai_shape", '{"type": "function", "function": {"name": "search", "arguments": {"query": "cats"}}}', "bare_json", "wrong_wrapper", "wrong_wrapper"),
    ("name_as_key", '```json\n{"search": {"query": "cats"}}\n```', "fenced_json", "wrong_wrapper", "wrong_wrapper"),
    ("args_as_string", '<tool_call>{"name": "search", "arguments": "{\\"query\\": \\"cats\\"}"}</tool_call>', "tool_call_tag", "arguments_not_object", "wrong_wrapper"),
    ("unclosed_tag", f"<tool_call>{CALL}", "tool_call_tag", "wrong_wrapper", "wrong_wrapper"),
    ("fence_in_tag", f"<tool_call>\n```json\n{CALL}\n```\n</tool_call>", "tool_call_tag", "wrong_wrapper", "wrong_wrapper"),
    ("react_fenced_input", 'Action: search\nAction Input: ```json\n{"query": "cats"}\n```', "react", "wrong_wrapper", "wrong_wrapper"),
    ("react_string_input", 'Action: search\nAction Input: "{\\"query\\": \\"cats\\"}"', "react", "wrong_wrapper", "arguments_not_object"),
    ("json_action", '{"action": "search", "action_input": {"query": "cats"}}', "bare_json", "wrong_wrapper", "wrong_wrapper"),
]  # fmt: skip


@pytest.mark.parametrize("scaffold", ["native", "react"])
@pytest.mark.parametrize(
    ("text", "surface", "native_code", "react_code"), [s[1:] for s in SURFACES], ids=[s[0] for s in SURFACES]
)
def test_surface_forms(text: str, surface: str, native_code: str | None, react_code: str | None, scaffold: str) -> None:  # fmt: skip
    strict_code = native_code if scaffold == "native" else react_code
    strict = parse(text, "strict", scaffold)
    if strict_code is None:
        call = only_call(strict)
        assert call.arguments == ARGS and call.repairs == ()
    else:
        assert not strict.accepted and [r.code for r in strict.refusals] == [strict_code]
        assert strict.refusals[0].reason
    repaired = only_call(parse(text, "repaired", scaffold))
    assert repaired.call.name == "search"
    assert repaired.call.surface == surface
    assert repaired.arguments == ARGS
    assert ("name_recognition" in repaired.repairs) == (strict_code is not None)


def test_strict_fenced_reason_names_the_wrapper_and_repaired_keeps_arguments() -> None:
    text = f"```json\n{CALL}\n```"
    refusal = parse(text, "strict", "native").refusals[0]
    assert "code fence" in refusal.reason and "<tool_call>" in refusal.reason
    assert refusal.name == "search" and refusal.arguments == ARGS
    assert only_call(parse(text, "repaired", "native")).call.arguments == ARGS


def test_arguments_kept_exactly_as_sent() -> None:
    text = '<tool_call>{"name": "search", "arguments": "{\\"query\\": \\"cats\\"}"}</tool_call>'
    call = only_call(parse(text, "repaired", "native"))
    assert call.call.arguments == '{"query": "cats"}'
    assert call.arguments == ARGS
    assert call.call.raw_span == text


@pytest.mark.parametrize("mode", ["strict", "repaired"])
@pytest.mark.parametrize("arguments", ['{"query": "cats"}', {"query": "cats"}])
def test_native_calls(mode: str, arguments: Any) -> None:
    native = [{"id": "c1", "type": "function", "function": {"name": "search", "arguments": arguments}}]
    call = only_call(parse("", mode, "native", native))
    assert call.call.surface == "native" and call.arguments == ARGS and call.repairs == ()
    assert parse("", "strict", "react", native).refusals[0].code == "wrong_wrapper"


@pytest.mark.parametrize(
    ("native", "code"),
    [
        ([{"function": {"name": "nope", "arguments": "{}"}}], "unknown_tool"),
        ([{"function": {"name": "search", "arguments": "{query: cats"}}], "unparseable_json"),
        ([{"function": {"arguments": "{}"}}], "missing_name"),
        ([{"function": {"name": "search", "arguments": "[1]"}}], "arguments_not_object"),
    ],
)
def test_native_call_refusals(native: list[dict[str, Any]], code: str) -> None:
    for mode in ("strict", "repaired"):
        assert [r.code for r in parse("", mode, "native", native).refusals] == [code]


REFUSALS = [
    ("empty", "  \n ", "native", "strict", "empty_output"),
    ("empty_repaired", "", "react", "repaired", "empty_output"),
    ("broken_tag", '<tool_call>{"name": "search", "arguments": {"query": }</tool_call>', "native", "repaired", "unparseable_json"),
    ("truncated", '<tool_call>{"name": "search", "arguments": {"query": "ca', "native", "repaired", "unparseable_json"),
    ("broken_bare", 'Sure: {"name": "search", "arguments": {query: cats}}', "native", "repaired", "unparseable_json"),
    ("unknown_tool", '<tool_call>{"name": "browse", "arguments": {}}</tool_call>', "native", "repaired", "unknown_tool"),
    ("unknown_react", 'Action: browse\nAction Input: {"url": "x"}', "react", "strict", "unknown_tool"),
    ("bad_react_input", "Action: search\nAction Input: cats please", "react", "repaired", "unparseable_json"),
    ("missing_input", "Thought: hm\nAction: search", "react", "strict", "missing_action_input"),
    ("missing_input_repaired", "Action: search\n", "react", "repaired", "missing_action_input"),
    ("missing_name", '<tool_call>{"arguments": {"query": "cats"}}</tool_call>', "native", "repaired", "missing_name"),
    ("empty_tag", "<tool_call></tool_call>", "native", "strict", "unparseable_json"),
    ("no_arguments_strict", '<tool_call>{"name": "search"}</tool_call>', "native", "strict", "wrong_keys"),
    ("missing_field", '<tool_call>{"name": "search", "arguments": {}}</tool_call>', "native", "strict", "schema_invalid"),
    ("surplus_field", '<tool_call>{"name": "search", "arguments": {"query": "a", "x": 1}}</tool_call>', "native", "repaired", "schema_invalid"),
    ("mistyped", '<tool_call>{"name": "search", "arguments": {"query": "a", "limit": "3"}}</tool_call>', "native", "repaired", "schema_invalid"),
    ("enum", '<tool_call>{"name": "data_query", "arguments": {"kind": "drop", "sql": "DROP TABLE t"}}</tool_call>', "native", "repaired", "schema_invalid"),
    ("mixed", 'Action: search\nAction Input: {"query": "cats"}\nFinal Answer: cats', "react", "strict", "mixed_call_and_answer"),
    ("mixed_native", f"<tool_call>{CALL}</tool_call> Final Answer: cats", "native", "strict", "mixed_call_and_answer"),
    ("no_action", "I think the answer is 4.", "react", "strict", "no_action"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "scaffold", "mode", "code"), [r[1:] for r in REFUSALS], ids=[r[0] for r in REFUSALS]
)
def test_refusal_codes(text: str, scaffold: str, mode: str, code: str) -> None:
    outcome = parse(text, mode, scaffold)
    assert not outcome.accepted and outcome.final_answer is None
    assert [r.code for r in outcome.refusals] == [code]
    assert len(outcome.refusals[0].reason) > 20


def test_schema_reason_carries_validator_message_and_arguments() -> None:
    outcome = parse(
        '<tool_call>{"name": "search", "arguments": {"query": 3}}</tool_call>', "strict", "native"
    )
    refusal = outcome.refusals[0]
    assert "3 is not of type 'string'" in refusal.reason and "query (string, required)" in refusal.reason
    assert refusal.arguments == {"query": 3} and refusal.name == "search"


def test_unknown_tool_reason_lists_tools() -> None:
    reason = (
        parse('<tool_call>{"name": "browse", "arguments": {}}</tool_call>', "strict", "native")
        .refusals[0]
        .reason
    )
    assert "browse" in reason and "search" in reason and "data_query" in reason


@pytest.mark.parametrize(
    ("text", "scaffold", "mode", "answer"),
    [
        ("Thought: done\nFinal Answer: 42 apples", "react", "strict", "42 apples"),
        ("**Final answer:** 42", "react", "repaired", "42"),
        ("It is 42.", "react", "repaired", "It is 42."),
        ("It is 42.", "native", "strict", "It is 42."),
        ("Final Answer: 42", "native", "strict", "42"),
        ('The user\'s record is {"name": "Ann", "age": 3}.', "native", "strict", 'The user\'s record is {"name": "Ann", "age": 3}.'),
        ("Use ```python\nprint(1)\n``` to print.", "native", "repaired", "Use ```python\nprint(1)\n``` to print."),
    ],
)  # fmt: skip
def test_final_answers(text: str, scaffold: str, mode: str, answer: str) -> None:
    outcome = parse(text, mode, scaffold)
    assert outcome.final_answer == answer and not outcome.accepted and not outcome.refusals


def test_mixed_refusal_names_the_call() -> None:
    refusal = parse(f"<tool_call>{CALL}</tool_call>\nFinal Answer: x", "strict", "native").refusals[0]
    assert (refusal.code, refusal.name, refusal.arguments) == ("mixed_call_and_answer", "search", ARGS)


def test_call_wins_over_answer_in_repaired_mode() -> None:
    outcome = parse(
        'Action: search\nAction Input: {"query": "cats"}\nFinal Answer: cats', "repaired", "react"
    )
    call = only_call(outcome)
    assert call.repairs == ("call_over_answer",) and outcome.final_answer is None


def test_multiple_calls_in_order() -> None:
    text = (
        '<tool_call>{"name": "search", "arguments": {"query": "a"}}</tool_call>\n'
        '<tool_call>{"name": "list_tables", "arguments": {}}</tool_call>\n'
        '```json\n{"name": "search", "arguments": {"query": "b"}}\n```'
    )
    strict = parse(text, "strict", "native")
    assert [a.call.name for a in strict.accepted] == ["search", "list_tables"]
    assert [r.code for r in strict.refusals] == ["wrong_wrapper"]
    repaired = parse(text, "repaired", "native")
    assert [a.arguments for a in repaired.accepted] == [{"query": "a"}, {}, {"query": "b"}]
    listed = parse(json.dumps([{"name": "search", "arguments": {"query": "a"}}] * 2), "repaired", "native")
    assert len(listed.accepted) == 2


def test_react_multiple_actions_and_observation_cut() -> None:
    text = (
        'Thought: first\nAction: search\nAction Input: {"query": "a"}\n'
        "Action: list_tables\nAction Input: {}\n"
        'Observation: made up\nAction: search\nAction Input: {"query": "z"}\nFinal Answer: z'
    )
    outcome = parse(text, "strict", "react")
    assert [a.call.name for a in outcome.accepted] == ["search", "list_tables"]
    assert outcome.thought == "first" and outcome.final_answer is None


def test_thought_is_text_before_the_call() -> None:
    outcome = parse(f"I should search first.\n<tool_call>{CALL}</tool_call>", "strict", "native")
    assert outcome.thought == "I should search first."


def test_repaired_name_normalisation() -> None:
    call = only_call(parse('Action: `Search`\nAction Input: {"query": "cats"}', "repaired", "react"))
    assert call.call.name == "search" and call.repairs == ("name_recognition",)
    assert parse('Action: `Search`\nAction Input: {"query": "cats"}', "strict", "react").refusals[0].code == (
        "unknown_tool"
    )


def test_repaired_json_fix_and_repairs_in_tag() -> None:
    text = "<tool_call>{'name': 'notification', 'arguments': {'to': 'Bo', 'text': 'hi',}}</tool_call>"
    call = only_call(parse(text, "repaired", "native"))
    assert call.arguments == {"recipient": "Bo", "message": "hi"}
    assert call.repairs == ("json_fix", "rename_flat_two_field")
    assert parse(text, "strict", "native").refusals[0].code == "unparseable_json"


def test_kind_from_content_through_parser() -> None:
    text = '<tool_call>{"name": "data_query", "arguments": {"kind": "select", "sql": "DELETE FROM t"}}</tool_call>'
    assert only_call(parse(text, "strict", "native")).arguments["kind"] == "select"
    repaired = only_call(parse(text, "repaired", "native"))
    assert repaired.arguments["kind"] == "delete" and repaired.repairs == ("kind_from_content",)
    assert repaired.call.arguments["kind"] == "select"


def test_sibling_guard_only_in_repaired_mode() -> None:
    text = '<tool_call>{"name": "search", "arguments": {"query": "a", "sql": "SELECT 1"}}</tool_call>'
    strict = parse(text, "strict", "native").refusals[0]
    assert "remove 'sql'" in strict.reason and strict.repairs == ()
    repaired = parse(text, "repaired", "native").refusals[0]
    assert "remove 'sql'" not in repaired.reason and "data_query" in repaired.reason
    assert repaired.repairs == ("sibling_required_guard",)


def test_non_string_text_is_treated_as_empty() -> None:
    outcome = parse_output(None, [], TOOLS, "strict", "native")  # type: ignore[arg-type]
    assert [r.code for r in outcome.refusals] == ["empty_output"]


def test_degenerate_output_stays_fast() -> None:
    started = time.perf_counter()
    for junk in ("{" * 20000, '{"a": [' * 5000, "search(" * 5000):
        outcome = parse(f"{junk}\n{CALL}", "repaired", "native")
        assert [a.arguments for a in outcome.accepted] == [ARGS]
    assert time.perf_counter() - started < 10
