"""``slmbench import inspect``: the samples of Inspect eval logs as the records of an imported study.

Each sample in each epoch is one trial: the log's model is the model, its task the suite (and group), the sample's
id the task, the epoch the repeat (epoch 1 is repeat 0), the chosen scorer's score the outcome (full credit passes;
the credit is the check's partial score), the conversation the events (``inspect_events``). A sample that ended in
an error is an infrastructure error, not a failure. One shard file holds one model's samples of one task at one
temperature: ``<out>/<model>/<task>_T<t>.jsonl``, written whole.

What a log does not have is left out and said so in the record: the failure class (our classes read our harness's
events), harm, the machine, the seed (0 where the log sets none) and, where the log leaves it to the provider, the
temperature (0, with ``temperature_set`` false in the provenance). The scaffold is ``native`` and the parser mode
``strict`` (Inspect's providers parse the calls), the protocol ``inspect``.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspect_ai.log import EvalLog, EvalSample

from slmbench.formats.errors import FormatError
from slmbench.formats.inspect_events import sample_events
from slmbench.formats.inspect_read import credit, read_log, sample_score, scorer_name
from slmbench.records import schema as rec
from slmbench.records.atomic import write_atomic
from slmbench.records.hashing import sha256_file
from slmbench.records.imported import IMPORTED
from slmbench.vocab import ELIGIBILITY_RAW, NAME_PATTERN, ORIGINAL_VARIANT, STUDY_ID, Outcome

log = logging.getLogger(__name__)
FORMAT = "inspect"
PROTOCOL = "inspect"
"""The protocol name of imported trials: Inspect's solvers ran them, under none of our protocol conditions."""
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def safe_name(name: str) -> str:
    """A model or task name as one path component and one part of a trial id (``mockllm/model`` ->
    ``mockllm-model``)."""
    return _UNSAFE.sub("-", name).strip("-") or "unnamed"


def check_study(out: Path) -> str:
    """The imported study's id: the name of its folder under ``data/raw``.

    Raises:
        FormatError: The name is not a study id, or is our own study's or the eligibility study's.
    """
    study = out.name
    if not re.fullmatch(NAME_PATTERN, study) or study in (STUDY_ID, ELIGIBILITY_RAW):
        raise FormatError(
            f"{out}: an imported study needs its own folder data/raw/<study>, <study> lower-case words joined by"
            f" '-' and not {STUDY_ID!r} or {ELIGIBILITY_RAW!r}"
        )
    return study


@dataclass(frozen=True)
class LogSettings:
    """What one log says about all its samples."""

    path: Path
    sha256: str
    log: EvalLog
    scorer: str
    model: str
    task: str
    temperature: float
    temperature_set: bool
    seed: int
    options: dict[str, Any]


def log_settings(path: Path, wanted_scorer: str | None) -> LogSettings:
    """Read one log and what holds for all its samples.

    Raises:
        FormatError: The file is not a readable Inspect log with scored samples.
    """
    log_ = read_log(path)
    config = log_.eval.model_generate_config.merge(log_.plan.config)
    options = config.model_dump(mode="json", exclude_none=True)
    return LogSettings(
        path=path,
        sha256=sha256_file(path),
        log=log_,
        scorer=scorer_name(log_, path, wanted_scorer),
        model=safe_name(log_.eval.model),
        task=safe_name(log_.eval.task),
        temperature=float(config.temperature) if config.temperature is not None else 0.0,
        temperature_set=config.temperature is not None,
        seed=int(config.seed) if config.seed is not None else 0,
        options=options,
    )


def trial_id(study: str, s: LogSettings, sample_id: str, repeat: int) -> str:
    """``<study>/<model>/<task>/<sample>/original/T<t>/native/strict/p-inspect/r<repeat>``: the form of our ids."""
    parts = [study, s.model, s.task, sample_id, ORIGINAL_VARIANT, f"T{s.temperature:g}", "native", "strict"]
    return "/".join([*parts, f"p-{PROTOCOL}", f"r{repeat}"])


def _verdict(sample: EvalSample, s: LogSettings) -> tuple[Outcome, rec.CheckResult | None, str]:
    """The outcome, the check (the score as one criterion) and an error's text."""
    if sample.error is not None:
        return "infra_error", None, sample.error.message
    score = sample_score(sample, s.scorer)
    value = credit(score) if score is not None else None
    if score is None or value is None:
        what = "no score" if score is None else f"a score that is no single number ({score.value!r})"
        return "infra_error", None, f"{what} from scorer {s.scorer}"
    passed = value >= 1.0
    detail = f"{s.scorer}: {score.value!r}" + (f" ({score.explanation})" if score.explanation else "")
    criterion = {"kind": f"inspect:{s.scorer}", "ok": passed, "detail": detail[:2000], "required": True}
    return (
        ("success" if passed else "failure"),
        rec.CheckResult(passed=passed, partial=value, criteria=[criterion]),
        "",
    )


def _stop_reason(sample: EvalSample, outcome: Outcome) -> str:
    if sample.limit is not None:
        return f"{sample.limit.type}_limit"
    return "infra_error" if outcome == "infra_error" else "final_answer"


def sample_record(study: str, s: LogSettings, sample: EvalSample) -> rec.TrialRecord:
    """One sample in one epoch as one trial record of ``study``."""
    sample_id = safe_name(str(sample.id))
    repeat = sample.epoch - 1
    outcome, check, error = _verdict(sample, s)
    events = sample_events(sample, s.options, outcome, _stop_reason(sample, outcome), error)
    spec = s.log.eval
    revision = spec.revision
    return rec.TrialRecord(
        trial_id=trial_id(study, s, sample_id, repeat),
        study=study,
        suite=s.task,
        task_id=sample_id,
        group=s.task,
        model=s.model,
        temperature=s.temperature,
        seed=s.seed,
        repeat=repeat,
        scaffold="native",
        parser_mode="strict",
        protocol=PROTOCOL,
        started_at=str(sample.started_at or spec.created),
        events=events,
        check=check,
        outcome=outcome,
        failure_class=None,
        failure_class_clock_first=None,
        fingerprint={
            "model_id": s.model,
            "inspect_model": spec.model,
            "backend": {"backend": spec.model.split("/")[0], "model_args": spec.model_args},
            "packages": spec.packages,
            "git_commit": revision.commit if revision else None,
            "temperature": s.temperature,
            "seed": s.seed,
        },
        provenance={
            IMPORTED: {
                "format": FORMAT,
                "file": str(s.path),
                "sha256": s.sha256,
                "eval_id": spec.eval_id,
                "run_id": spec.run_id,
                "task": spec.task,
                "task_version": spec.task_version,
                "sample_id": sample.id,
                "epoch": sample.epoch,
                "scorer": s.scorer,
                "input": sample.input if isinstance(sample.input, str) else _first_user_text(sample),
                "target": sample.target,
                "tools": sorted(
                    {c.function for m in sample.messages for c in getattr(m, "tool_calls", None) or []}
                ),
                "temperature_set": s.temperature_set,
            },
            "command": "slmbench import inspect",
            "shard": f"{s.task}_T{s.temperature:g}",
            "settings": {"generate_config": s.options},
        },
    )


def _first_user_text(sample: EvalSample) -> str:
    return next((m.text for m in sample.messages if m.role == "user"), "")


def shard_path(out: Path, s: LogSettings) -> Path:
    """Where a log's samples go: ``<out>/<model>/<task>_T<t>.jsonl``."""
    return out / s.model / f"{s.task}_T{s.temperature:g}.jsonl"


def import_inspect(paths: Iterable[Path], out: Path, scorer: str | None = None) -> dict[Path, int]:
    """Import the logs at ``paths`` into the study folder ``out`` (``data/raw/<study>``); records per file written.

    Every log is read and checked before any file is written.

    Raises:
        FormatError: A file is not a readable Inspect log with scored samples, two logs give one trial, or ``out``
            is no imported study's folder.
    """
    study = check_study(out)
    shards: dict[Path, list[rec.TrialRecord]] = {}
    origin: dict[str, Path] = {}
    for path in paths:
        s = log_settings(path, scorer)
        for sample in s.log.samples or []:
            record = sample_record(study, s, sample)
            if record.trial_id in origin:
                raise FormatError(f"{path}: trial {record.trial_id} is also in {origin[record.trial_id]}")
            origin[record.trial_id] = path
            shards.setdefault(shard_path(out, s), []).append(record)
    written: dict[Path, int] = {}
    for target, records in sorted(shards.items()):
        records.sort(key=lambda r: (r.task_id, r.repeat))
        write_atomic(target, "".join(r.model_dump_json() + "\n" for r in records))
        written[target] = len(records)
        log.info("%s: %d trials", target, len(records))
    return written
