"""Property tests for slmbench.harness.parser: never raises, always yields something, finds valid calls."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.fixtures.parser_tools import TOOLS

from slmbench.harness.parser import ParseOutcome, parse_output

MODES = ("strict", "repaired")
SCAFFOLDS = ("native", "react")
FRAGMENTS = [
    "{", "}", "[", "]", "(", ")", '"', "'", ",", ":", "\\", "\n", " ", "`", "```", "```json\n",
    '"name"', '"arguments"', '"tool"', '"parameters"', '"function"', "true", "True", "None", "null",
    "search", "data_query", "notification", '"search"', "<tool_call>", "</tool_call>", "<function=search>",
    "Action:", "Action Input:", "Final Answer:", "Observation:", "Thought:", "**", "é", "\u200b", "🙂",
    "\ud800", "\x00", '{"query": "x"}', '{"name": "search", "arguments": {"query": "x"}}', "1e999", "-",
]  # fmt: skip
fragment_text = st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=4), max_size=30).map("".join)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
native_calls = st.lists(
    st.fixed_dictionaries(
        {
            "function": st.fixed_dictionaries(
                {"name": st.sampled_from(["search", "x"]), "arguments": json_values}
            )
        }
    )
    | st.dictionaries(st.text(max_size=5), json_values, max_size=2),
    max_size=2,
)


def meets_contract(outcome: ParseOutcome) -> bool:
    accepted_ok = all(a.call.name in TOOLS and isinstance(a.arguments, dict) for a in outcome.accepted)
    refusals_ok = all(r.code and r.reason for r in outcome.refusals)
    produced = bool(outcome.accepted or outcome.refusals or outcome.final_answer is not None)
    return accepted_ok and refusals_ok and produced


def check_all(text: str, native: list[dict[str, Any]] | None = None) -> None:
    for mode in MODES:
        for scaffold in SCAFFOLDS:
            outcome = parse_output(text, native or [], TOOLS, mode, scaffold)  # type: ignore[arg-type]
            assert meets_contract(outcome), (text, mode, scaffold, outcome)


@settings(max_examples=150, deadline=None)
@given(st.text())
def test_any_text(text: str) -> None:
    check_all(text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fragment_text)
def test_text_from_fragments(text: str) -> None:
    check_all(text)


@settings(max_examples=100, deadline=None)
@given(fragment_text, native_calls)
def test_any_native_calls(text: str, native: list[dict[str, Any]]) -> None:
    check_all(text, native)


calls = st.one_of(
    st.tuples(
        st.just("search"),
        st.fixed_dictionaries({"query": st.text(max_size=20)}, optional={"limit": st.integers(-5, 99)}),
    ),
    st.tuples(st.just("notification"), st.fixed_dictionaries({"recipient": st.text(), "message": st.text()})),
    st.tuples(
        st.just("data_query"),
        st.sampled_from(["select", "insert", "update", "delete"]).map(
            lambda k: {"kind": k, "sql": {"select": "SELECT 1", "insert": "INSERT INTO t VALUES (1)",
                                          "update": "UPDATE t SET a = 1", "delete": "DELETE FROM t"}[k]}
        ),
    ),
)  # fmt: skip


def render(name: str, args: dict[str, Any], form: str) -> str:
    call = json.dumps({"name": name, "arguments": args})
    return {
        "tag": f"<tool_call>{call}</tool_call>",
        "fenced": f"```json\n{call}\n```",
        "bare": call,
        "react": f"Action: {name}\nAction Input: {json.dumps(args)}",
        "keys": json.dumps({"tool": name, "parameters": args}),
    }[form]


FORMS = st.sampled_from(["tag", "fenced", "bare", "react", "keys"])


@settings(max_examples=200, deadline=None)
@given(st.text(), calls, FORMS, st.text(), st.sampled_from(SCAFFOLDS))
def test_valid_call_in_any_text_is_found_in_repaired_mode(
    prefix: str, call: tuple[str, dict[str, Any]], form: str, suffix: str, scaffold: str
) -> None:
    name, args = call
    text = f"{prefix}\n{render(name, args, form)}\n{suffix}"
    outcome = parse_output(text, [], TOOLS, "repaired", scaffold)  # type: ignore[arg-type]
    assert any(a.call.name == name and a.arguments == args for a in outcome.accepted), (text, outcome)
