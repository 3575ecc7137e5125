"""Protocol conditions through the real loop, driven by a scripted model: each changes only what it names."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from tests.fixtures.shard_runs import scripted_run

from slmbench.backends.scripted_backend import ScriptedBackend
from slmbench.harness.loop import LoopSettings, run_trial
from slmbench.harness.protocol import LEGACY, ProtocolConditions, answer_in_call, call_key
from slmbench.records import schema as rec
from slmbench.run.runner import build_record
from slmbench.tasks.loader import parse_task
from slmbench.tasks.variants import TrialSpec

TASK = parse_task(
    {
        "id": "DA-99",
        "suite": "capability",
        "group": "data_analysis",
        "difficulty": "easy",
        "instruction": "What is 17 times 23? Then email the result to ops@acme.example.",
        "tools": ["calculator", "email"],
        "check": [
            {"kind": "called", "tool": "calculator"},
            {"kind": "answer_number", "value": 391, "abs_tol": 0.5},
        ],
        "solution": {
            "calls": [{"name": "calculator", "arguments": {"expression": "17*23"}}],
            "final_answer": "391",
        },
        "wrong_solution": {"calls": [], "final_answer": "400"},
    }
)
FULL = ProtocolConditions(True, True, True, True, True)
CALC_ARGS = {"expression": "17*23"}
CALC = "<tool_call>" + json.dumps({"name": "calculator", "arguments": CALC_ARGS}) + "</tool_call>"


def tag(obj: dict[str, Any]) -> str:
    return "<tool_call>" + json.dumps(obj) + "</tool_call>"


class NativeScripted(ScriptedBackend):
    """A scripted model whose template takes tools (as Qwen's does), counting KV resets."""

    supports_native_tools = True

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.resets = 0

    def reset(self) -> bool:
        self.resets += 1
        return True


def run(outputs, conditions=LEGACY, backend_cls=ScriptedBackend, max_turns=4, tmp_path=Path(".")):
    backend = backend_cls(outputs)
    spec = TrialSpec(task=TASK, variant="original", instruction=TASK.instruction, faults=(), repeat=0)
    settings = LoopSettings(max_turns=max_turns, budget_s=30.0, max_tokens=64, protocol=conditions)
    result = run_trial(backend, spec, settings, tmp_path)
    shard = scripted_run(
        max_turns=max_turns, budget_s=30.0, base_seed=1, protocol="test", conditions=conditions
    )
    return backend, build_record(shard, spec, result, seed=1, started_at="t", fingerprint={})


def events(record, kind):
    return [e for e in record.events if isinstance(e, kind)]


def test_legacy_repeats_an_identical_call_until_the_turn_limit(tmp_path):
    backend, record = run([CALC] * 4, tmp_path=tmp_path)
    assert len(events(record, rec.ToolResultEvent)) == 4 and not events(record, rec.StuckEvent)
    assert record.outcome == "failure" and record.failure_class == "clock"
    assert backend.requests[-1][-2] == {"role": "assistant", "content": CALC}  # raw text stays in the history


def test_stuck_detection_runs_an_identical_call_once_and_asks_for_the_answer(tmp_path):
    conditions = replace(LEGACY, stuck_detection=True)
    backend, record = run([CALC, CALC, "It is 391."], conditions, tmp_path=tmp_path)
    assert len(events(record, rec.ToolResultEvent)) == 1
    (stuck,) = events(record, rec.StuckEvent)
    assert stuck.first_call_id == "c1" and stuck.call_id == "c2"
    assert "already called calculator" in backend.requests[2][-1]["content"]
    assert record.outcome == "success"


def test_a_retry_after_a_failed_call_is_not_stuck(tmp_path):
    bad = tag({"name": "calculator", "arguments": {"expression": "17*"}})
    _, record = run([bad, bad, "391"], replace(LEGACY, stuck_detection=True), tmp_path=tmp_path)
    assert not events(record, rec.StuckEvent) and len(events(record, rec.ToolResultEvent)) == 2


def test_the_final_answer_tool_ends_the_trial(tmp_path):
    answer = tag({"name": "final_answer", "arguments": {"answer": "17 x 23 = 391"}})
    _, legacy = run([CALC, answer], tmp_path=tmp_path / "a")
    assert legacy.outcome == "failure" and events(legacy, rec.RefusalEvent)[0].code == "unknown_tool"
    _, record = run([CALC, answer], replace(LEGACY, answer_channel=True), tmp_path=tmp_path / "b")
    (final,) = events(record, rec.FinalAnswerEvent)
    assert final.channel == "final_answer_tool" and final.text == "17 x 23 = 391"
    assert record.outcome == "success"


def test_an_answer_inside_a_repeated_call_is_read_as_the_final_answer(tmp_path):
    """DA-1 as qwen2.5-coder-1.5b wrote it: the call again, with the result inside the JSON."""
    with_result = (
        "```json\n" + json.dumps({"name": "calculator", "arguments": CALC_ARGS, "result": 391}) + "\n```"
    )
    _, record = run([CALC, with_result], replace(LEGACY, answer_channel=True), tmp_path=tmp_path)
    (final,) = events(record, rec.FinalAnswerEvent)
    assert (final.channel, final.text, record.outcome) == ("answer_in_call", "391", "success")
    assert len(events(record, rec.ToolResultEvent)) == 1


def test_an_answer_key_in_a_call_that_never_ran_is_not_an_answer():
    text = json.dumps({"name": "calculator", "arguments": CALC_ARGS, "result": 391})
    assert answer_in_call(text, {}) is None
    assert answer_in_call(text, {call_key("calculator", CALC_ARGS): None}) == "391"
    assert answer_in_call("no json here {", {}) is None


def test_an_action_name_used_as_a_tool_name_is_resolved_to_its_tool(tmp_path):
    send = tag({"name": "send", "arguments": {"to": "ops@acme.example", "subject": "Result", "body": "391"}})
    _, legacy = run([CALC, send, "391"], tmp_path=tmp_path / "a")
    assert [r.code for r in events(legacy, rec.RefusalEvent)] == ["unknown_tool"]
    _, record = run([CALC, send, "391"], replace(LEGACY, answer_channel=True), tmp_path=tmp_path / "b")
    email = events(record, rec.ToolCallEvent)[1]
    assert email.name == "email" and email.surface == "action_name" and email.repairs[0] == "action_as_tool"
    assert email.arguments == {"to": "ops@acme.example", "subject": "Result", "body": "391"}  # as sent
    assert email.repaired_arguments["action"] == "send"
    assert events(record, rec.ToolResultEvent)[1].ok


def test_the_closing_turn_asks_once_for_the_answer_and_is_marked(tmp_path):
    outputs = [CALC, CALC, "The answer is 391."]
    _, legacy = run(outputs, max_turns=2, tmp_path=tmp_path / "a")
    assert legacy.outcome == "failure" and legacy.events[-1].stop_reason == "max_turns"
    backend, record = run(outputs, replace(LEGACY, closing_turn=True), max_turns=2, tmp_path=tmp_path / "b")
    requests = events(record, rec.ModelRequest)
    assert [r.purpose for r in requests] == ["turn", "turn", "closing"]
    assert backend.requests[-1][-1]["content"].startswith("Now answer my original request")
    (final,) = events(record, rec.FinalAnswerEvent)
    assert final.channel == "closing_turn" and record.events[-1].stop_reason == "closing_answer"
    assert record.outcome == "success" and record.events[-1].turns == 3


def test_a_closing_turn_that_calls_a_tool_again_gives_no_answer(tmp_path):
    _, record = run([CALC] * 3, replace(LEGACY, closing_turn=True), max_turns=2, tmp_path=tmp_path)
    assert not events(record, rec.FinalAnswerEvent) and len(events(record, rec.ToolResultEvent)) == 2
    assert record.events[-1].stop_reason == "max_turns" and record.failure_class == "clock"


def test_canonical_history_sends_structured_calls_and_named_tool_messages(tmp_path):
    fenced = "```json\n" + json.dumps({"name": "calculator", "arguments": CALC_ARGS}) + "\n```"
    backend, _ = run(
        [fenced, "391"], replace(LEGACY, canonical_history=True), NativeScripted, tmp_path=tmp_path
    )
    assistant, tool = backend.requests[1][-2:]
    assert assistant["tool_calls"] == [
        {"id": "c1", "type": "function", "function": {"name": "calculator", "arguments": CALC_ARGS}}
    ]
    assert tool["role"] == "tool" and tool["name"] == "calculator" and tool["tool_call_id"] == "c1"


def test_canonical_history_without_a_tool_template_writes_the_prompted_form(tmp_path):
    fenced = "```json\n" + json.dumps({"name": "calculator", "arguments": CALC_ARGS}) + "\n```"
    backend, _ = run([fenced, "391"], replace(LEGACY, canonical_history=True), tmp_path=tmp_path)
    assistant, observation = backend.requests[1][-2:]
    assert assistant == {"role": "assistant", "content": CALC}
    assert observation["role"] == "user" and observation["content"].startswith("Observation: [calculator]")


def test_clean_kv_resets_the_backend_before_each_trial_and_records_it(tmp_path):
    backend, record = run([CALC, "391"], FULL, NativeScripted, tmp_path=tmp_path)
    assert backend.resets == 1
    _, legacy = run([CALC, "391"], LEGACY, NativeScripted, tmp_path=tmp_path / "b")
    assert "kv_reset" not in legacy.provenance["settings"]


def test_every_record_carries_its_protocol_and_the_tools_end_state(tmp_path):
    _, record = run([CALC, "391"], FULL, tmp_path=tmp_path)
    (state,) = events(record, rec.ToolStateEvent)
    assert state.snapshot["calculator"] == {"expressions": ["17*23"]}
    assert record.provenance["settings"]["protocol"]["stuck_detection"] is True


def test_an_unknown_condition_in_config_is_an_error_naming_it():
    with pytest.raises(ValueError, match=r"protocols.x: unknown protocol condition\(s\) \['stuck'\]"):
        ProtocolConditions.from_mapping({"stuck": True}, "protocols.x")
