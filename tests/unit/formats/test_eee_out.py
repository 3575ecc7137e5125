"""Our results and trials in Every Eval Ever's schema: checked by that package's validator and pydantic models, and
each number against an independent computation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from every_eval_ever.eval_types import EvaluationLog
from every_eval_ever.instance_level_types import InstanceLevelEvaluationLog, InteractionType
from every_eval_ever.validator import validate_file
from statsmodels.stats.proportion import proportion_confint

from slmbench.cli import main
from slmbench.formats.eee_out import export_eee
from slmbench.formats.errors import FormatError
from slmbench.records import schema as rec
from slmbench.records.ledger import iter_records

DEVELOPERS = {"smollm2-135m": "HuggingFaceTB"}


@pytest.fixture(scope="module")
def exported(raw_study: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Path]]:
    out = tmp_path_factory.mktemp("eee")
    return out, export_eee(raw_study, out, DEVELOPERS)


def aggregates(paths: list[Path]) -> dict[str, EvaluationLog]:
    logs = [EvaluationLog.model_validate_json(p.read_text()) for p in paths if p.suffix == ".json"]
    return {log.model_info.name: log for log in logs}


def test_files_sit_in_the_datastore_layout_and_pass_the_validator(exported: tuple[Path, list[Path]]) -> None:
    out, paths = exported
    rel = sorted(p.relative_to(out).as_posix() for p in paths)
    assert [r.rsplit("/", 1)[0] for r in rel] == [
        "data/slmbench/HuggingFaceTB/smollm2-135m",
        "data/slmbench/HuggingFaceTB/smollm2-135m",
        "data/slmbench/Qwen/qwen2.5-coder-1.5b",
        "data/slmbench/Qwen/qwen2.5-coder-1.5b",
    ]
    available = frozenset(rel)
    for path in paths:
        report = validate_file(
            path,
            repo_path=path.relative_to(out).as_posix(),
            available_files=available,
            read_repo_file=lambda r: (out / r).read_text(),
            run_semantic_checks=True,
        )
        assert report.valid, report.errors
        assert report.warnings == []


def test_accuracy_per_model_and_suite_with_its_wilson_interval(
    raw_study: Path, exported: tuple[Path, list[Path]]
) -> None:
    logs = aggregates(exported[1])
    for model, log in logs.items():
        (result,) = log.evaluation_results
        shard = next((raw_study / model).glob(f"{result.evaluation_result_id}.jsonl"))
        records = [r for _, r in iter_records(shard)]
        shares: dict[tuple[str, str], list[bool]] = {}
        for r in records:
            shares.setdefault((r.task_id, r.variant), []).append(r.outcome == "success")
        passed = sum(sum(v) / len(v) for v in shares.values())
        lo, hi = proportion_confint(passed, len(shares), alpha=0.05, method="wilson")
        details = result.score_details
        assert details.score == pytest.approx(passed / len(shares))
        assert details.uncertainty is not None and details.uncertainty.confidence_interval is not None
        interval = details.uncertainty.confidence_interval
        assert (interval.lower, interval.upper) == (pytest.approx(lo), pytest.approx(hi))
        assert interval.confidence_level == 0.95 and details.uncertainty.num_samples == len(shares) == 5
        args = result.generation_config.generation_args  # type: ignore[union-attr]
        assert args is not None and args.temperature == 0.0
        backend = records[0].fingerprint["backend"]
        engine = log.model_info.inference_engine
        assert engine is not None and (engine.name, engine.version) == (
            "llama.cpp",
            backend["backend_version"],
        )


def test_every_trial_is_an_agentic_row_with_its_tool_calls(
    raw_study: Path, exported: tuple[Path, list[Path]]
) -> None:
    out, paths = exported
    samples = next(p for p in paths if p.name.endswith("_samples.jsonl") and "qwen" in p.as_posix())
    rows = [InstanceLevelEvaluationLog.model_validate_json(line) for line in samples.read_text().splitlines()]
    records = {
        r.trial_id: r
        for _, r in iter_records(
            raw_study / "qwen2.5-coder-1.5b" / "null_control_T0_native_repaired_p-full.jsonl"
        )
    }
    assert len(rows) == len(records) == 10
    aggregate = aggregates(paths)["qwen2.5-coder-1.5b"]
    for row in rows:
        assert row.interaction_type == InteractionType.agentic and row.messages
        assert row.evaluation_id == aggregate.evaluation_id
        record = records[row.metadata["trial_id"]]  # type: ignore[index]
        assert row.evaluation.is_correct == (record.outcome == "success")
        sent = [e for e in record.events if isinstance(e, rec.ToolCallEvent)]
        calls = [c for m in row.messages for c in m.tool_calls or []]
        assert row.evaluation.tool_calls_count == len(sent)
        accepted = [c for c in calls if not c.id.startswith("refused-")]
        assert [(c.id, c.name) for c in accepted] == [(e.call_id, e.name) for e in sent]
        for call, event in zip(accepted, sent, strict=True):
            assert {k: json.loads(v) for k, v in (call.arguments or {}).items()} == event.arguments
    assert aggregate.detailed_evaluation_results is not None
    assert aggregate.detailed_evaluation_results.total_rows == 10


def test_the_same_data_gives_the_same_files(
    raw_study: Path, exported: tuple[Path, list[Path]], tmp_path: Path
) -> None:
    out, paths = exported
    again = export_eee(raw_study, tmp_path, DEVELOPERS)
    assert [p.relative_to(tmp_path) for p in again] == [p.relative_to(out) for p in paths]
    assert all(a.read_bytes() == b.read_bytes() for a, b in zip(again, paths, strict=True))


def test_a_model_without_a_known_publisher_is_refused_with_the_option_to_name_it(
    raw_study: Path, tmp_path: Path
) -> None:
    with pytest.raises(FormatError, match="--developer smollm2-135m=<org>"):
        export_eee(raw_study, tmp_path, {})
    result = CliRunner().invoke(main, ["export", "eee", "--raw", str(raw_study), "--out", str(tmp_path)])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert result.output.strip().splitlines()[-1].startswith("Error: model smollm2-135m")
    args = [
        "export",
        "eee",
        "--raw",
        str(raw_study),
        "--out",
        str(tmp_path),
        "--developer",
        "smollm2-135m=HuggingFaceTB",
    ]
    assert CliRunner().invoke(main, args).exit_code == 0
