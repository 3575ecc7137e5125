"""The agent loop driven by a scripted model: each behaviour lands in the expected outcome and class."""

from pathlib import Path

import pytest
from tests.fixtures.shard_runs import scripted_run

from slmbench.backends.base import BackendError
from slmbench.backends.scripted_backend import ScriptedBackend
from slmbench.harness.loop import LoopSettings, run_trial
from slmbench.records import schema as rec
from slmbench.run.runner import build_record
from slmbench.tasks.loader import parse_task
from slmbench.tasks.variants import TrialSpec
from slmbench.tools.faults import FaultSpec

TASK = parse_task(
    {
        "id": "MSR-99",
        "suite": "capability",
        "group": "multi_step_reasoning",
        "difficulty": "easy",
        "instruction": "Send a notification to ops saying the total of 17 times 23.",
        "tools": ["calculator", "notification"],
        "check": [
            {"kind": "called", "tool": "calculator"},
            {"kind": "state", "tool": "notification", "path": ["sent"], "contains": {"recipient": "ops"}},
            {"kind": "answer_number", "value": 391, "abs_tol": 0.5},
        ],
        "solution": {
            "calls": [
                {"name": "calculator", "arguments": {"expression": "17*23"}},
                {"name": "notification", "arguments": {"recipient": "ops", "message": "391"}},
            ],
            "final_answer": "391",
        },
        "wrong_solution": {"calls": [], "final_answer": "400"},
    }
)

CALC = '<tool_call>{"name": "calculator", "arguments": {"expression": "17*23"}}</tool_call>'
NOTIFY = (
    '<tool_call>{"name": "notification", "arguments": {"recipient": "ops", "message": "391"}}</tool_call>'
)
NOTIFY_WRONG_FIELDS = (
    '<tool_call>{"name": "notification", "arguments": {"recipient": "ops", "text": "391"}}</tool_call>'
)


def trial(outputs, mode="strict", faults=(), tmp_path=Path("."), **kw) -> rec.TrialRecord:
    spec = TrialSpec(task=TASK, variant="original", instruction=TASK.instruction, faults=faults, repeat=0)
    settings = LoopSettings(scaffold="native", parser_mode=mode, max_turns=4, budget_s=30.0, max_tokens=64)
    run = run_trial(ScriptedBackend(outputs, **kw), spec, settings, tmp_path)
    shard = scripted_run(mode=mode, base_seed=1, budget_s=30.0)
    return build_record(shard, spec, run, seed=1, started_at="t", fingerprint={})


def events(record, kind):
    return [e for e in record.events if isinstance(e, kind)]


def test_correct_calls_succeed_and_the_ledger_holds_the_arguments_as_sent(tmp_path):
    record = trial([CALC, NOTIFY, "The total is 391."], tmp_path=tmp_path)
    assert record.outcome == "success" and record.failure_class is None
    calls = events(record, rec.ToolCallEvent)
    assert [c.arguments for c in calls] == [{"expression": "17*23"}, {"recipient": "ops", "message": "391"}]
    assert all(c.surface == "tool_call_tag" and c.parser_mode == "strict" for c in calls)
    assert [r.content for r in events(record, rec.ToolResultEvent)][0] == {"result": 391}


def test_malformed_json_is_refused_with_a_reason_and_the_trial_goes_on(tmp_path):
    record = trial(
        [
            '<tool_call>{"name": "calculator", "arguments": {"expression": "17*23"</tool_call>',
            CALC,
            NOTIFY,
            "391",
        ],
        tmp_path=tmp_path,
    )
    refusals = events(record, rec.RefusalEvent)
    assert refusals and refusals[0].turn == 1
    assert record.outcome == "success"


def test_wrong_field_names_are_refused_in_strict_and_repaired_in_repaired(tmp_path):
    strict = trial([CALC, NOTIFY_WRONG_FIELDS, "391"], mode="strict", tmp_path=tmp_path / "a")
    refusal = events(strict, rec.RefusalEvent)[0]
    assert refusal.code == "schema_invalid" and refusal.arguments == {"recipient": "ops", "text": "391"}
    assert strict.outcome == "failure" and strict.failure_class == "capability"
    repaired = trial([CALC, NOTIFY_WRONG_FIELDS, "391"], mode="repaired", tmp_path=tmp_path / "b")
    call = events(repaired, rec.ToolCallEvent)[1]
    assert call.arguments == {"recipient": "ops", "text": "391"}
    assert call.repaired_arguments == {"recipient": "ops", "message": "391"} and call.repairs
    assert repaired.outcome == "success"


def test_never_calling_a_tool_is_no_tool_call(tmp_path):
    record = trial(["I think it is 391."], tmp_path=tmp_path)
    assert record.outcome == "failure" and record.failure_class == "no_tool_call"


def test_only_refused_calls_is_transport(tmp_path):
    bad = '```json\n{"name": "calculator", "arguments": {"expression": "17*23"}}\n```'
    record = trial([bad, bad, "391"], tmp_path=tmp_path)
    assert {r.code for r in events(record, rec.RefusalEvent)} == {"wrong_wrapper"}
    assert record.failure_class == "transport"


def test_endless_calls_hit_the_turn_limit(tmp_path):
    record = trial([CALC], repeat_last=True, tmp_path=tmp_path)
    end = events(record, rec.EndEvent)[0]
    assert end.stop_reason == "max_turns" and end.turns == 4
    assert record.failure_class == "clock" and record.failure_class_clock_first == "clock"


def test_a_tool_fault_is_recorded_and_the_model_can_recover(tmp_path):
    record = trial(
        [CALC, CALC, NOTIFY, "391"], faults=(FaultSpec("calculator", "timeout", 1),), tmp_path=tmp_path
    )
    assert [f.kind for f in events(record, rec.FaultEvent)] == ["timeout"]
    results = events(record, rec.ToolResultEvent)
    assert results[0].ok is False and "timeout" in results[0].error and results[1].ok
    assert record.outcome == "success"


def test_a_dead_backend_is_an_infrastructure_error_not_a_model_failure(tmp_path):
    record = trial([CALC, BackendError("connection refused")], tmp_path=tmp_path)
    assert record.outcome == "infra_error" and record.failure_class is None and record.check is None
    assert "connection refused" in events(record, rec.EndEvent)[0].error


@pytest.mark.parametrize("garbage", ["", "   ", "\x00\x01", "{{{{", "<tool_call>" * 50])
def test_garbage_output_never_crashes_the_loop(tmp_path, garbage):
    record = trial([garbage], repeat_last=True, tmp_path=tmp_path)
    assert record.outcome == "failure"


def test_a_refusal_records_the_repairs_that_shaped_it(tmp_path):
    stray = '<tool_call>{"name": "calculator", "arguments": {"expression": "17*23", "recipient": "ops"}}</tool_call>'
    repaired = events(trial([stray, "391"], mode="repaired", tmp_path=tmp_path / "a"), rec.RefusalEvent)[0]
    assert repaired.code == "schema_invalid" and repaired.repairs == ["sibling_required_guard"]
    assert "notification" in repaired.reason  # the guard points to the tool that owns the field
    strict = events(trial([stray, "391"], mode="strict", tmp_path=tmp_path / "b"), rec.RefusalEvent)[0]
    assert strict.repairs == []
