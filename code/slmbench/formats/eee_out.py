"""``slmbench export eee``: the study's results and trials in Every Eval Ever's schema, checked by its validator.

Each model is one aggregate file, ``data/<study>/<developer>/<model>/<uuid>.json`` under the output folder (the
datastore's layout, from Every Eval Ever's own path function), with one result per shard: the model's accuracy on
the shard's suite under the shard's condition, the share of tasks passed (a task in one variant; its repeats pooled
into its pass share) with its 95 % Wilson interval over those tasks as the uncertainty, and the condition
(temperature, scaffold, parser mode, protocol, limits, tools offered) as the generation config. The inference engine
is the backend's (``llama.cpp`` for the embedded models) with the version its fingerprint records. Beside it,
``<uuid>_samples.jsonl`` holds every trial as an agentic instance row (``eee_instances``). Both files are checked with
Every Eval Ever's validator, its semantic checks included; a file it refuses is removed and reported.

The file's UUID is derived from the model's shards' hashes, so the same data gives the same files.
"""

from __future__ import annotations

import hashlib
import logging
import uuid
from collections.abc import Mapping
from datetime import datetime, timedelta
from pathlib import Path

import pandas as pd
from every_eval_ever.eval_types import (
    AgenticEvalConfig,
    AvailableTool,
    ConfidenceInterval,
    DetailedEvaluationResults,
    EvalLibrary,
    EvalLimits,
    EvaluationLog,
    EvaluationResult,
    EvaluatorRelationship,
    Format,
    GenerationArgs,
    GenerationConfig,
    HashAlgorithm,
    InferenceEngine,
    MetricConfig,
    ModelInfo,
    ScoreDetails,
    ScoreType,
    SourceDataPrivate,
    SourceMetadata,
    SourceType,
    Uncertainty,
)
from every_eval_ever.helpers.developer import get_developer
from every_eval_ever.helpers.io import datastore_path_components
from every_eval_ever.schema import get_schema_version
from every_eval_ever.validator import format_error, format_warning, validate_file

from slmbench import __version__
from slmbench.analysis.stats_rates import wilson_share_interval
from slmbench.backends import backend_facts
from slmbench.formats.eee_instances import instance_row
from slmbench.formats.errors import FormatError
from slmbench.formats.inspect_out import inspect_model
from slmbench.formats.posed import posed
from slmbench.formats.shards import Shard, read_shards
from slmbench.judging.scoring import CHECKS_VERSION
from slmbench.records import schema as rec
from slmbench.records.atomic import write_atomic

log = logging.getLogger(__name__)
ALPHA = 0.05
"""One minus the confidence level of the intervals."""
OPEN_WEIGHTS = {"deployment_type": "self_deployed", "model_availability": "open_weights"}


def developer_of(model: str, named: Mapping[str, str]) -> str:
    """The publisher of a model's weights: as named on the command line, else from Every Eval Ever's table.

    Raises:
        FormatError: Neither knows it (the datastore files a model under its publisher).
    """
    developer = named.get(model) or get_developer(model)
    if developer == "unknown":
        raise FormatError(
            f"model {model}: Every Eval Ever files a model under the publisher of its weights, which its table does"
            f" not know; name it with --developer {model}=<org>"
        )
    return developer


def engine(shard: Shard) -> InferenceEngine:
    """The inference engine of a shard's trials (the backend's) and its version from the fingerprint."""
    fp = shard.records[0].fingerprint.get("backend") or {}
    name = shard.key.server or backend_facts(str(fp.get("backend"))).engine
    server = fp.get("server") or {}
    version = (
        fp.get("backend_version") or server.get("version") or server.get("build_info") or fp.get("version")
    )
    return InferenceEngine(name=name, version=str(version) if version else None)


def accuracy(records: tuple[rec.TrialRecord, ...]) -> tuple[ScoreDetails, int] | None:
    """The share of tasks passed with its Wilson interval over tasks; None when no trial was scored."""
    rows = pd.DataFrame(
        [
            {"unit": (r.task_id, r.variant), "ok": r.outcome == "success"}
            for r in records
            if r.outcome != "infra_error"
        ]
    )
    if rows.empty:
        return None
    shares = rows.groupby("unit")["ok"].mean()
    lo, hi = wilson_share_interval(float(shares.sum()), len(shares), ALPHA)
    details = {
        "trials": str(len(rows)),
        "passed": str(int(rows["ok"].sum())),
        "tasks": str(len(shares)),
        "infra_errors": str(len(records) - len(rows)),
        "unit": "a task in one variant, its repeats pooled into its pass share",
    }
    interval = ConfidenceInterval(
        lower=lo, upper=hi, confidence_level=1 - ALPHA, method="Wilson score interval over tasks"
    )
    score = ScoreDetails(
        score=float(shares.mean()),
        details=details,
        uncertainty=Uncertainty(confidence_interval=interval, num_samples=len(shares)),
    )
    return score, len(shares)


def result(shard: Shard) -> EvaluationResult | None:
    """The shard's result: accuracy on its suite under its condition (None when no trial was scored)."""
    scored = accuracy(shard.records)
    if scored is None:
        log.warning("%s: no scored trial: left out of the results", shard.path)
        return None
    key, first = shard.key, shard.records[0]
    settings = first.provenance.get("settings", {})
    tools = sorted({t for r in shard.records if (p := posed(r.task_id, r.variant)) for t in p.tools})
    budget = settings.get("budget_s")
    condition = {
        "scaffold": key.scaffold,
        "parser_mode": key.mode,
        "protocol": key.protocol,
        "n_ctx": first.fingerprint.get("n_ctx"),
        "max_turns": settings.get("max_turns"),
        "repeats": max(r.repeat for r in shard.records) + 1,
        "rerun": key.rerun,
        "server": key.server,
        "checks_version": CHECKS_VERSION,
    }
    return EvaluationResult(
        evaluation_result_id=key.stem(),
        evaluation_name=f"slmbench {key.suite}",
        source_data=SourceDataPrivate(
            dataset_name=f"slmbench {key.task_suite} tasks",
            source_type="other",
            additional_details={"location": f"code/slmbench/tasks/data/{key.task_suite}"},
        ),
        evaluation_timestamp=min(r.started_at for r in shard.records),
        metric_config=MetricConfig(
            evaluation_description="share of tasks passed by their checks (a task in one variant; repeats pooled)",
            metric_id="accuracy",
            metric_name="accuracy",
            metric_kind="accuracy",
            metric_unit="proportion",
            lower_is_better=False,
            score_type=ScoreType.continuous,
            min_score=0.0,
            max_score=1.0,
        ),
        score_details=scored[0],
        generation_config=GenerationConfig(
            generation_args=GenerationArgs(
                temperature=key.temperature,
                max_tokens=settings.get("max_tokens"),
                agentic_eval_config=AgenticEvalConfig(available_tools=[AvailableTool(name=t) for t in tools]),
                eval_limits=EvalLimits(time_limit=int(budget) if budget else None),
            ),
            additional_details={k: str(v) for k, v in condition.items() if v is not None},
        ),
    )


def _file_uuid(shards: list[Shard]) -> str:
    digest = hashlib.sha256("".join(s.sha256 for s in shards).encode()).digest()
    return str(uuid.UUID(bytes=digest[:16], version=4))


def _finished(shards: list[Shard]) -> datetime:
    ends = []
    for shard in shards:
        for r in shard.records:
            end = r.events[-1]
            assert isinstance(end, rec.EndEvent)
            ends.append(datetime.fromisoformat(r.started_at) + timedelta(seconds=end.wall_s))
    return max(ends)


def evaluation_id(shards: list[Shard], model_id: str) -> str:
    """``<study>/<model id>/<when the last trial finished>`` (the form Every Eval Ever asks for)."""
    return f"{shards[0].study}/{model_id}/{int(_finished(shards).timestamp())}"


def model_log(
    model: str, shards: list[Shard], developer: str, samples_path: str, rows: int, checksum: str
) -> EvaluationLog:
    """The aggregate file of one model: a result per shard, the model and its engine, the samples file."""
    fp = shards[0].records[0].fingerprint
    model_id = f"{developer}/{model}"
    finished = str(int(_finished(shards).timestamp()))
    results = [r for r in (result(s) for s in shards) if r is not None]
    details = {"quantisation": fp.get("quantisation"), "weights_sha256": fp.get("weights_sha256"),
               "params_b": fp.get("params_b"), "instruct": fp.get("instruct"), **OPEN_WEIGHTS}  # fmt: skip
    return EvaluationLog(
        schema_version=get_schema_version(),
        evaluation_id=evaluation_id(shards, model_id),
        evaluation_timestamp=min(r.started_at for s in shards for r in s.records),
        retrieved_timestamp=finished,
        source_metadata=SourceMetadata(
            source_name="slmbench",
            source_type=SourceType.evaluation_run,
            source_organization_name="slmbench",
            evaluator_relationship=EvaluatorRelationship.third_party,
            additional_details={"study": shards[0].study, "git_commit": str(fp.get("git_commit"))},
        ),
        eval_library=EvalLibrary(name="slmbench", version=__version__),
        model_info=ModelInfo(
            name=model,
            id=model_id,
            developer=developer,
            inference_engine=engine(shards[0]),
            additional_details={k: str(v) for k, v in details.items() if v is not None},
        ),
        evaluation_results=results,
        detailed_evaluation_results=DetailedEvaluationResults(
            format=Format.jsonl,
            file_path=samples_path,
            hash_algorithm=HashAlgorithm.sha256,
            checksum=checksum,
            total_rows=rows,
        ),
    )


def _validate(out: Path, paths: list[Path]) -> None:
    """Every Eval Ever's validator on the files written (repository checks included); a refused file is removed.

    Raises:
        FormatError: The validator refused a file (its first error).
    """
    repo = {p: p.relative_to(out).as_posix() for p in paths}
    available = frozenset(repo.values())
    for path in paths:
        report = validate_file(
            path,
            repo_path=repo[path],
            available_files=available,
            read_repo_file=lambda rel: (out / rel).read_text(encoding="utf-8"),
            run_semantic_checks=True,
        )
        for warning in report.warnings:
            log.warning("%s: %s", path, format_warning(warning))
        if not report.valid:
            for p in paths:
                p.unlink(missing_ok=True)
            raise FormatError(
                f"{path}: refused by Every Eval Ever's validator: {format_error(report.errors[0])}"
            )


def export_eee(raw: Path, out: Path, developers: Mapping[str, str]) -> list[Path]:
    """Write each model's aggregate and samples files under ``out`` and validate them; the paths written.

    Raises:
        FormatError: A model's publisher is unknown, or the validator refused a file.
        RawRecordError: A bad line of a shard (``file:line``).
    """
    by_model: dict[tuple[str, str], list[Shard]] = {}
    for shard in read_shards(raw):
        by_model.setdefault((shard.study, shard.key.model), []).append(shard)
    written: list[Path] = []
    for (study, model), shards in sorted(by_model.items()):
        developer = developer_of(model, developers)
        collection, dev_dir, model_dir = datastore_path_components(study, f"{developer}/{model}", developer)
        folder = Path("data", collection, dev_dir, model_dir)
        name = _file_uuid(shards)
        samples_rel = (folder / f"{name}_samples.jsonl").as_posix()
        model_id, eval_id = f"{developer}/{model}", evaluation_id(shards, f"{developer}/{model}")
        lines = [
            instance_row(r, eval_id, model_id, f"slmbench {s.key.suite}", s.key.stem(), inspect_model(s))
            for s in shards
            for r in s.records
        ]
        text = "".join(row.model_dump_json(exclude_none=True) + "\n" for row in lines)
        checksum = hashlib.sha256(text.encode()).hexdigest()
        aggregate = model_log(model, shards, developer, samples_rel, len(lines), checksum)
        agg_path, samples_path = out / folder / f"{name}.json", out / samples_rel
        write_atomic(samples_path, text)
        write_atomic(agg_path, aggregate.model_dump_json(exclude_none=True, indent=2) + "\n")
        _validate(out, [agg_path, samples_path])
        log.info(
            "%s: %d results, %d trials -> %s", model, len(aggregate.evaluation_results), len(lines), agg_path
        )
        written += [agg_path, samples_path]
    return written
