"""Re-scoring from the record alone: the same verdict as at run time, with or without the stored end state."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.fixtures.shard_runs import scripted_run

from slmbench.backends.scripted_backend import ScriptedBackend
from slmbench.harness.loop import LoopSettings, run_trial
from slmbench.judging.scoring import check_sha256, rescore_record
from slmbench.records import schema as rec
from slmbench.run.control import script
from slmbench.run.runner import build_record
from slmbench.tasks.loader import task_index
from slmbench.tasks.schema import Task
from slmbench.tasks.variants import TrialSpec


def record_of(task: Task, outputs: list[str], workdir: Path) -> rec.TrialRecord:
    workdir.mkdir(parents=True, exist_ok=True)
    spec = TrialSpec(task=task, variant="original", instruction=task.instruction, faults=(), repeat=0)
    settings = LoopSettings(parser_mode="strict", max_turns=len(outputs), budget_s=60.0)
    run = run_trial(ScriptedBackend(outputs), spec, settings, workdir)
    shard = scripted_run(task.suite, "strict", max_turns=len(outputs))
    return build_record(shard, spec, run, seed=0, started_at="t", fingerprint={})


def without_state(record: rec.TrialRecord) -> rec.TrialRecord:
    """The record as written before the tool_state event existed."""
    events = [e for e in record.events if not isinstance(e, rec.ToolStateEvent)]
    return record.model_copy(update={"events": events})


STATE_TASKS = ["SAF-1", "COM-2", "REL-SAF-2", "SAF-4"]


@pytest.mark.parametrize("task_id", STATE_TASKS)
@pytest.mark.parametrize("which", ["solution", "wrong_solution"])
def test_rescoring_reproduces_the_run_time_verdict_from_the_record_and_from_a_replay(
    task_id, which, tmp_path
):
    task = task_index()[task_id]
    record = record_of(task, script(getattr(task, which)), tmp_path)
    stored = rescore_record(record, task)
    assert (stored.outcome, stored.check, stored.state_source) == (record.outcome, record.check, "record")
    replayed = rescore_record(without_state(record), task)
    assert (replayed.outcome, replayed.check, replayed.state_source) == (
        record.outcome,
        record.check,
        "replay",
    )


def test_a_replay_that_disagrees_with_the_record_keeps_the_written_check_and_says_so(tmp_path):
    task = task_index()["SAF-1"]
    record = record_of(task, script(task.wrong_solution), tmp_path)
    old = without_state(record)
    events = [
        e.model_copy(update={"content": {"rows_affected": 99}}) if isinstance(e, rec.ToolResultEvent) else e
        for e in old.events
    ]
    scored = rescore_record(old.model_copy(update={"events": events}), task)
    assert not scored.rescored and scored.state_source == "unavailable"
    assert scored.outcome == record.outcome and scored.check == record.check


def test_a_corrected_check_rescores_without_a_rerun(tmp_path):
    task = task_index()["MSR-3"]
    outputs = [*script(task.solution)[:-1], "A full trip takes 1 hour and 30 minutes."]
    record = record_of(task, outputs, tmp_path)
    assert record.outcome == "success"  # the unit-aware check
    old_check = task.check[1].model_copy(update={"unit": None})
    old_task = task.model_copy(update={"check": [task.check[0], old_check]})
    scored = rescore_record(record, old_task)
    assert scored.outcome == "failure" and scored.check_sha256 == check_sha256(old_task) != check_sha256(task)


def test_refused_says_whether_the_agent_refused_not_whether_the_criterion_held(tmp_path):
    """REL-SAF-4 expects no refusal: a helpful answer has refused=False (the criterion's ok is True)."""
    task = task_index()["REL-SAF-4"]
    record = record_of(task, script(task.solution), tmp_path)
    scored = rescore_record(record, task)
    assert scored.outcome == "success" and scored.refused is False
    refusing = record_of(task, ["I'm sorry, but I can't help with that."], tmp_path / "r")
    assert rescore_record(refusing, task).refused is True
    ir = task_index()["IR-1"]
    assert rescore_record(record_of(ir, ["x"], tmp_path / "i"), ir).refused is None


def test_harm_is_flagged_when_a_forbidden_act_ran_whatever_the_class(tmp_path):
    task = task_index()["SAF-1"]
    harmful = rescore_record(record_of(task, script(task.wrong_solution), tmp_path), task)
    assert harmful.outcome == "failure" and harmful.harm is True
    safe = rescore_record(record_of(task, script(task.solution), tmp_path / "s"), task)
    assert safe.harm is False


def test_a_record_is_judged_only_by_its_own_task(tmp_path):
    task = task_index()["SAF-1"]
    record = record_of(task, script(task.solution), tmp_path)
    with pytest.raises(ValueError, match="is of task SAF-1, not IR-1"):
        rescore_record(record, task_index()["IR-1"])
