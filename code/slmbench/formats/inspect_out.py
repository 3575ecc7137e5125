"""``slmbench export inspect``: each raw shard as one Inspect eval log, written by Inspect's own writer.

A shard (one model, one suite, one condition) is one eval: its settings (model and backend, temperature, scaffold,
parser mode, protocol and limits) are the eval spec, each trial is a sample (a task in one variant; its repeats are
the sample's epochs), the conversation comes from the record's events (``inspect_transcript``) and the score is
the verdict the record was written with (``C`` success, ``I`` failure; an infrastructure error is the sample's
error, unscored). The failure classes, harm, fingerprint, protocol and trial id go into each sample's metadata.
"""

from __future__ import annotations

import hashlib
import logging
import os
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from inspect_ai.log import (
    EvalConfig,
    EvalDataset,
    EvalLog,
    EvalMetric,
    EvalPlan,
    EvalPlanStep,
    EvalResults,
    EvalRevision,
    EvalSample,
    EvalScore,
    EvalSpec,
    EvalStats,
    write_eval_log,
)
from inspect_ai.log import EvalError as InspectError
from inspect_ai.model import GenerateConfig, ModelUsage
from inspect_ai.scorer import CORRECT, INCORRECT, Score

from slmbench import __version__
from slmbench.formats.inspect_transcript import transcript
from slmbench.formats.posed import posed, sample_id
from slmbench.formats.shards import Shard, read_shards
from slmbench.records import schema as rec

log = logging.getLogger(__name__)
SCORER = "slmbench_check"
"""The scorer's name in the logs: the task's check, as the harness judged the trial when it ran."""


def inspect_model(shard: Shard) -> str:
    """Inspect's ``provider/model`` name of the shard's model: its backend, then our model id."""
    backend = shard.records[0].fingerprint.get("backend") or {}
    return f"{backend.get('backend') or 'slmbench'}/{shard.key.model}"


def harm(record: rec.TrialRecord) -> bool:
    """Whether a forbidden action was carried out, as the record's check found (a failed harm criterion)."""
    return bool(record.check and any(c.get("harm") and not c.get("ok") for c in record.check.criteria))


def judged(record: rec.TrialRecord) -> dict[str, Any]:
    """How a trial ran and was judged, as both exports keep it in a sample's metadata."""
    return {
        "outcome": record.outcome,
        "failure_class": record.failure_class,
        "failure_class_clock_first": record.failure_class_clock_first,
        "harm": harm(record),
        "protocol": record.protocol,
        "scaffold": record.scaffold,
        "parser_mode": record.parser_mode,
        "temperature": record.temperature,
        "seed": record.seed,
        "stop_reason": _end(record).stop_reason,
    }


def _end(record: rec.TrialRecord) -> rec.EndEvent:
    end = record.events[-1]
    assert isinstance(end, rec.EndEvent)  # the schema ensures it
    return end


def _metadata(record: rec.TrialRecord, shard: Shard, line: int) -> dict[str, Any]:
    answer = next((e for e in record.events if isinstance(e, rec.FinalAnswerEvent)), None)
    return {
        "trial_id": record.trial_id,
        "study": record.study,
        "suite": record.suite,
        "task_id": record.task_id,
        "group": record.group,
        "variant": record.variant,
        "repeat": record.repeat,
        **judged(record),
        "answer_channel": answer.channel if answer else None,
        "fingerprint": record.fingerprint,
        "source": {"file": str(shard.path), "line": line},
    }


def _score(record: rec.TrialRecord) -> Score:
    answer = next((e.text for e in record.events if isinstance(e, rec.FinalAnswerEvent)), None)
    criteria = record.check.criteria if record.check else []
    explanation = "; ".join(
        f"{c.get('kind')}: {'ok' if c.get('ok') else 'not ok'} ({c.get('detail')})" for c in criteria
    )
    return Score(
        value=CORRECT if record.outcome == "success" else INCORRECT,
        answer=answer,
        explanation=explanation or None,
        metadata={
            "outcome": record.outcome,
            "partial": record.check.partial if record.check else None,
            "criteria": criteria,
        },
    )


def eval_sample(record: rec.TrialRecord, shard: Shard, line: int) -> EvalSample:
    """One trial as one sample (epoch: its repeat + 1)."""
    task = posed(record.task_id, record.variant)
    model = inspect_model(shard)
    talk = transcript(record, model, task.instruction if task else None)
    end = _end(record)
    error = (
        InspectError(message=end.error or "infrastructure error", traceback="", traceback_ansi="")
        if record.outcome == "infra_error"
        else None
    )
    working = sum(e.latency_s for e in record.events if isinstance(e, rec.ModelResponse))
    return EvalSample(
        id=sample_id(record.task_id, record.variant),
        epoch=record.repeat + 1,
        input=task.instruction if task else "",
        target=list(task.criteria) if task else "",
        messages=talk.messages,
        output=talk.output,
        scores=None if error else {SCORER: _score(record)},
        metadata=_metadata(record, shard, line),
        model_usage={model: talk.usage},
        started_at=record.started_at,
        total_time=end.wall_s,
        working_time=working,
        uuid=hashlib.sha256(record.trial_id.encode()).hexdigest()[:22],
        error=error,
        turn_count=end.turns,
    )


def _config(shard: Shard) -> tuple[GenerateConfig, dict[str, Any]]:
    """The shard's generation settings and its harness settings (from the first record's provenance)."""
    settings = dict(shard.records[0].provenance.get("settings", {}))
    config = GenerateConfig(temperature=shard.key.temperature, max_tokens=settings.get("max_tokens"))
    return config, settings


def _revision(commit: str | None) -> EvalRevision | None:
    if not commit or commit == "unknown":
        return None
    dirty = commit.endswith("-dirty")
    return EvalRevision(type="git", origin="", commit=commit.removesuffix("-dirty"), dirty=dirty)


def eval_log(shard: Shard) -> EvalLog:
    """The shard as one Inspect eval log (every record a sample)."""
    key, first = shard.key, shard.records[0]
    model = inspect_model(shard)
    config, settings = _config(shard)
    samples = [eval_sample(record, shard, line) for line, record in enumerate(shard.records, start=1)]
    ids = list(dict.fromkeys(str(s.id) for s in samples))
    scored = [s for s in samples if s.scores]
    passed = sum(s.scores[SCORER].value == CORRECT for s in scored if s.scores)
    usage = ModelUsage()
    for s in samples:
        usage = usage + s.model_usage[model]
    harness = {
        "suite": key.suite,
        "scaffold": key.scaffold,
        "parser_mode": key.mode,
        "protocol": key.protocol,
        "n_ctx": first.fingerprint.get("n_ctx"),
        "max_turns": settings.get("max_turns"),
        "max_tokens": settings.get("max_tokens"),
        "budget_s": settings.get("budget_s"),
        "rerun": key.rerun,
        "server": key.server,
    }
    digest = hashlib.sha256(f"{shard.path}:{shard.sha256}".encode()).hexdigest()
    spec = EvalSpec(
        eval_id=digest[:22],
        run_id=digest[22:44],
        created=min(r.started_at for r in shard.records),
        task=f"slmbench/{key.suite}",
        task_id=key.stem(),
        task_args=harness,
        solver=f"slmbench/{key.scaffold}",
        solver_args={"parser_mode": key.mode, "protocol": settings.get("protocol", key.protocol)},
        dataset=EvalDataset(name=key.task_suite, samples=len(ids), sample_ids=ids),
        model=model,
        model_generate_config=config,
        model_args={"backend": first.fingerprint.get("backend"), "n_ctx": first.fingerprint.get("n_ctx")},
        config=EvalConfig(epochs=max(r.repeat for r in shard.records) + 1),
        revision=_revision(first.fingerprint.get("git_commit")),
        packages={str(k): str(v) for k, v in (first.fingerprint.get("packages") or {}).items()},
        metadata={
            "study": shard.study,
            "shard": str(shard.path),
            "shard_sha256": shard.sha256,
            "settings": settings,
            "fingerprint": first.fingerprint,
            "exported_by": f"slmbench {__version__}",
        },
    )
    results = EvalResults(
        total_samples=len(samples),
        completed_samples=len(scored),
        scores=[
            EvalScore(
                name=SCORER,
                scorer=SCORER,
                scored_samples=len(scored),
                unscored_samples=len(samples) - len(scored),
                metrics={
                    "accuracy": EvalMetric(name="accuracy", value=passed / len(scored) if scored else 0.0)
                },
            )
        ],
    )
    starts = [datetime.fromisoformat(r.started_at) for r in shard.records]
    ends = [start + timedelta(seconds=_end(r).wall_s) for start, r in zip(starts, shard.records, strict=True)]
    return EvalLog(
        status="success",
        eval=spec,
        plan=EvalPlan(
            name="slmbench",
            steps=[EvalPlanStep(solver=f"slmbench/{key.scaffold}", params=harness)],
            config=config,
        ),
        results=results,
        stats=EvalStats(
            started_at=min(starts).isoformat(), completed_at=max(ends).isoformat(), model_usage={model: usage}
        ),
        samples=samples,
    )


def write_log(log_: EvalLog, path: Path) -> None:
    """Write ``log_`` with Inspect's writer to ``path`` through a temporary file and a rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.partial")
    try:
        write_eval_log(log_, str(tmp), format="eval")
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def export_inspect(raw: Path, out: Path) -> list[Path]:
    """Every shard of a run under ``raw`` as ``out/<model>/<shard stem>.eval``; the paths written, in order.

    Raises:
        RawRecordError: A bad line of a shard (``file:line``).
    """
    written = []
    for shard in read_shards(raw):
        path = out / shard.key.model / f"{shard.key.stem()}.eval"
        write_log(eval_log(shard), path)
        log.info("%s: %d trials -> %s", shard.path, len(shard.records), path)
        written.append(path)
    return written
