"""Our shards out as Inspect eval logs, read back with Inspect's own reader: every sample checked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from inspect_ai.log import EvalLog, read_eval_log
from inspect_ai.model import ChatMessageAssistant, ChatMessageTool
from inspect_ai.scorer import CORRECT, INCORRECT

from slmbench.cli import main
from slmbench.formats.inspect_out import SCORER, export_inspect
from slmbench.formats.posed import sample_id
from slmbench.records import schema as rec
from slmbench.records.ledger import iter_records


@pytest.fixture(scope="module")
def exported(raw_study: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[Path, EvalLog]:
    out = tmp_path_factory.mktemp("inspect_out")
    paths = export_inspect(raw_study, out)
    return {path: read_eval_log(str(path)) for path in paths}


def records_of(raw_study: Path, log_path: Path) -> list[rec.TrialRecord]:
    shard = raw_study / log_path.parent.name / f"{log_path.stem}.jsonl"
    return [record for _, record in iter_records(shard)]


def test_one_log_per_shard_named_as_the_shard(exported: dict[Path, EvalLog]) -> None:
    names = sorted(f"{p.parent.name}/{p.stem}" for p in exported)
    assert names == [
        "qwen2.5-coder-1.5b/null_control_T0_native_repaired_p-full",
        "smollm2-135m/null_control_T0_native_repaired",
    ]
    assert all(p.suffix == ".eval" and log.status == "success" for p, log in exported.items())


def test_every_sample_is_a_trial_with_its_score_and_metadata(
    raw_study: Path, exported: dict[Path, EvalLog]
) -> None:
    for path, log in exported.items():
        records = records_of(raw_study, path)
        samples = {(str(s.id), s.epoch): s for s in log.samples or []}
        assert len(samples) == len(records) == 10
        for record in records:
            sample = samples[(sample_id(record.task_id, record.variant), record.repeat + 1)]
            assert sample.scores is not None
            assert sample.scores[SCORER].value == (CORRECT if record.outcome == "success" else INCORRECT)
            meta = sample.metadata
            assert meta["trial_id"] == record.trial_id
            assert (meta["failure_class"], meta["failure_class_clock_first"]) == (
                record.failure_class,
                record.failure_class_clock_first,
            )
            assert meta["protocol"] == record.protocol and meta["fingerprint"] == record.fingerprint
            assert meta["harm"] is False  # no null-control task can do harm
            answer = next((e.text for e in record.events if isinstance(e, rec.FinalAnswerEvent)), None)
            assert sample.scores[SCORER].answer == answer
            replies = [m for m in sample.messages if isinstance(m, ChatMessageAssistant)]
            raw = [e.raw_text for e in record.events if isinstance(e, rec.ModelResponse)]
            assert [m.text for m in replies] == raw
        epochs = max(r.repeat for r in records) + 1
        assert log.eval.config.epochs == epochs == 2
        assert log.results is not None
        accuracy = log.results.scores[0].metrics["accuracy"].value
        assert accuracy == pytest.approx(sum(r.outcome == "success" for r in records) / len(records))


def test_tool_calls_carry_the_arguments_as_sent_and_the_results_as_got(
    raw_study: Path, exported: dict[Path, EvalLog]
) -> None:
    path = next(p for p in exported if p.parent.name == "qwen2.5-coder-1.5b")
    records = {r.trial_id: r for r in records_of(raw_study, path)}
    checked = 0
    for sample in exported[path].samples or []:
        record = records[sample.metadata["trial_id"]]
        sent = {e.call_id: e for e in record.events if isinstance(e, rec.ToolCallEvent)}
        got = {e.call_id: e for e in record.events if isinstance(e, rec.ToolResultEvent)}
        calls = [
            c for m in sample.messages if isinstance(m, ChatMessageAssistant) for c in m.tool_calls or []
        ]
        accepted = [c for c in calls if c.parse_error is None]
        assert [c.id for c in accepted] == list(sent)
        for call in accepted:
            assert call.function == sent[call.id].name and call.arguments == sent[call.id].arguments
            checked += 1
        for message in sample.messages:
            if isinstance(message, ChatMessageTool) and message.tool_call_id in got:
                result = got[message.tool_call_id]
                assert message.error is None and result.ok
                content = result.content
                text = (
                    content
                    if isinstance(content, str)
                    else json.dumps(content, ensure_ascii=False, sort_keys=True)
                )
                assert message.text == text
    assert checked == 8  # every call of the shard


def test_the_eval_spec_holds_the_shards_settings(exported: dict[Path, EvalLog]) -> None:
    by_model = {p.parent.name: log for p, log in exported.items()}
    qwen = by_model["qwen2.5-coder-1.5b"].eval
    assert qwen.model == "llamacpp/qwen2.5-coder-1.5b"
    assert qwen.model_generate_config.temperature == 0.0
    assert qwen.task_args["protocol"] == "full" and qwen.task_args["scaffold"] == "native"
    assert qwen.task_args["parser_mode"] == "repaired" and qwen.solver == "slmbench/native"
    assert by_model["smollm2-135m"].eval.task_args["protocol"] == "legacy"
    assert qwen.metadata is not None and qwen.metadata["fingerprint"]["weights_sha256"]


def test_the_command_writes_the_logs(raw_study: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["export", "inspect", "--raw", str(raw_study), "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert len(list(tmp_path.rglob("*.eval"))) == 2
