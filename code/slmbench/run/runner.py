"""Run a shard: every trial its key and plan name, resumable, locked, preflighted, each judged as it ends."""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import resource
import tempfile
import time
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm import tqdm

from slmbench.backends.base import Backend, BackendError, preflight
from slmbench.config import StudyConfig, model_spec
from slmbench.harness.loop import LoopSettings, TrialRun, run_trial
from slmbench.harness.protocol import LEGACY, ProtocolConditions
from slmbench.judging.checks import TrialView
from slmbench.judging.scoring import executed_calls, final_answer, score
from slmbench.records import schema as rec
from slmbench.records.fingerprint import trial_fingerprint
from slmbench.records.ledger import ShardWriter
from slmbench.run.inflight import in_flight
from slmbench.run.key import ShardKey
from slmbench.run.plan import Shard
from slmbench.run.serving import serving_settings
from slmbench.tasks.loader import load_suite
from slmbench.tasks.variants import TrialSpec, trial_plan
from slmbench.vocab import STUDY_ID

log = logging.getLogger(__name__)
MAX_CONSECUTIVE_INFRA_ERRORS = 3


@dataclass(frozen=True)
class ShardRun:
    """How a shard's trials are run: the shard (key, repeats, tasks) and the study's settings for it."""

    shard: Shard
    base_seed: int
    max_turns: int
    budget_s: float
    max_tokens: int
    conditions: ProtocolConditions = LEGACY
    study: str = STUDY_ID
    concurrency: int = 1  # trials in flight at once (a served model); records are appended as trials finish
    serving: dict[str, Any] | None = None  # a serving shard's server and how it ran (``run.serving``)

    @property
    def key(self) -> ShardKey:
        """The shard's identity."""
        return self.shard.key


def run_settings(config: StudyConfig, shard: Shard) -> ShardRun:
    """The settings a shard runs with: the study's, where its key names no limit of its own.

    Raises:
        ConfigError: the key's protocol is not defined under ``protocols``, or a serving shard's model cannot be
            served (``run.serving.serving_settings``).
    """
    key = shard.key
    return ShardRun(
        shard=shard,
        base_seed=config.seed,
        max_turns=key.max_turns or config.max_turns,
        budget_s=config.trial_budget_s,
        max_tokens=key.max_tokens or config.max_tokens,
        conditions=config.conditions(key.protocol),
        concurrency=config.models[key.model].concurrency if key.model in config.models else 1,
        serving=serving_settings(key, model_spec(config, key.model), config.trial_budget_s)
        if key.server
        else None,
    )


def derive_seed(base_seed: int, model: str, task_id: str, variant: str, repeat: int) -> int:
    """A seed fixed by (model, task, variant, repeat), so reruns reproduce their sampling."""
    key = f"{base_seed}|{model}|{task_id}|{variant}|{repeat}".encode()
    return int.from_bytes(hashlib.sha256(key).digest()[:4], "big") & 0x7FFFFFFF


def trials(run: ShardRun) -> list[TrialSpec]:
    """Every trial of the shard, in a fixed order.

    Raises:
        ValueError: a task id that is not a task of the shard's suite.
    """
    tasks = load_suite(run.key.task_suite)
    chosen = run.shard.tasks
    if chosen:
        unknown = set(chosen) - {t.id for t in tasks}
        if unknown:
            raise ValueError(f"unknown task id(s) for suite {run.key.task_suite}: {sorted(unknown)}")
        tasks = [t for t in tasks if t.id in chosen]
    return [trial for task in tasks for trial in trial_plan(task, run.shard.repeats, run.key.perturbation)]


def loop_settings(run: ShardRun, trial: TrialSpec) -> LoopSettings:
    """How the loop runs one trial of the shard (its seed fixed by the trial's identity)."""
    key = run.key
    return LoopSettings(
        scaffold=key.scaffold,
        parser_mode=key.mode,
        max_turns=run.max_turns,
        budget_s=run.budget_s,
        max_tokens=run.max_tokens,
        temperature=key.temperature,
        seed=derive_seed(run.base_seed, key.model, trial.task.id, trial.variant, trial.repeat),
        logprobs=True,
        protocol=run.conditions,
    )


def trial_id(run: ShardRun, trial: TrialSpec) -> str:
    """The id of one trial of the shard (``ShardKey.trial_id``)."""
    return run.key.trial_id(trial.task.id, trial.variant, trial.repeat, run.study)


def peak_rss_mb() -> float:
    """Peak resident memory of this process (the model lives in-process for llamacpp)."""
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0, 1)


def build_record(
    shard: ShardRun, trial: TrialSpec, run: TrialRun, seed: int, started_at: str, fingerprint: dict[str, Any]
) -> rec.TrialRecord:
    """Judge a finished run from its events (as tidy will re-judge the record) and assemble its record."""
    key = shard.key
    state = next((e.snapshot for e in run.events if isinstance(e, rec.ToolStateEvent)), {})
    view = TrialView(final_answer(run.events), executed_calls(run.events), state)
    scored = score(trial.task, view, run.events, run.stop_reason, run.infra_error)
    check, outcome = scored.check, scored.outcome
    failure, failure_alt = scored.failure_class, scored.failure_class_clock_first
    end = rec.EndEvent(
        t=run.wall_s,
        outcome=outcome,
        failure_class=failure,
        failure_class_clock_first=failure_alt,
        stop_reason=run.stop_reason,
        turns=run.turns,
        wall_s=run.wall_s,
        peak_rss_mb=peak_rss_mb(),
        error=run.infra_error,
    )
    return rec.TrialRecord(
        trial_id=trial_id(shard, trial),
        study=shard.study,
        suite=key.suite,
        task_id=trial.task.id,
        group=trial.task.group,
        variant=trial.variant,
        model=key.model,
        temperature=key.temperature,
        seed=seed,
        repeat=trial.repeat,
        scaffold=key.scaffold,
        parser_mode=key.mode,
        protocol=key.protocol,
        started_at=started_at,
        events=[*run.events, end],
        check=check,
        outcome=outcome,
        failure_class=failure,
        failure_class_clock_first=failure_alt,
        fingerprint=fingerprint,
        provenance={
            "shard": key.stem(),
            "command": "slmbench run",
            "settings": {
                "max_turns": shard.max_turns,
                "budget_s": shard.budget_s,
                "max_tokens": shard.max_tokens,
                **({"n_ctx": key.n_ctx} if key.n_ctx else {}),
                **({"rerun": key.rerun} if key.rerun else {}),
                **({"perturbation": key.perturbation} if key.perturbation else {}),
                "protocol": {"name": key.protocol, **shard.conditions.as_dict()},
                **({"kv_reset": run.kv_reset} if run.kv_reset is not None else {}),
                "concurrency": shard.concurrency,
                **({"serving": shard.serving} if shard.serving else {}),
            },
        },
    )


def run_shard(
    shard: ShardRun,
    backend_factory: Callable[[], Backend],
    out: Path,
    fingerprint_for: Callable[[Backend, float, int], dict[str, Any]] | None = None,
    progress: bool = True,
) -> int:
    """Run every trial of ``shard`` not yet in ``out``; returns the number of trials written now."""
    planned = trials(shard)
    key = shard.key
    written = 0
    clock = time.monotonic()
    with ShardWriter(out) as writer:
        todo = [t for t in planned if trial_id(shard, t) not in writer.done]
        if not todo:
            log.info("%s: all %d trials already recorded", out, len(planned))
            return 0
        backend = backend_factory()
        preflight(backend)
        consecutive_infra = 0
        bar = tqdm(
            total=len(planned),
            initial=len(planned) - len(todo),
            disable=not progress,
            unit="trial",
            desc=out.name,
        )

        def run_one(trial: TrialSpec) -> tuple[rec.TrialRecord, str]:
            settings = loop_settings(shard, trial)
            seed = settings.seed
            started_at = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
            with tempfile.TemporaryDirectory(prefix="slmbench-trial-") as workdir:
                run = run_trial(backend, trial, settings, Path(workdir))
            fp = (
                fingerprint_for(backend, key.temperature, seed)
                if fingerprint_for
                else trial_fingerprint(key.model, None, backend.fingerprint(), key.temperature, seed)
            )
            return build_record(shard, trial, run, seed, started_at, fp), run.infra_error

        # closing: an error below stops the threads at once (no trial starts after it)
        with closing(in_flight(todo, run_one, shard.concurrency)) as finished:
            for record, infra_error in finished:
                writer.append(record)  # whole, in the order trials finish
                written += 1
                bar.update(1)
                consecutive_infra = consecutive_infra + 1 if infra_error else 0
                if consecutive_infra >= MAX_CONSECUTIVE_INFRA_ERRORS:
                    bar.close()
                    raise BackendError(
                        f"{out}: stopping after {consecutive_infra} infrastructure errors in a row "
                        f"(last: {infra_error}); {written} trials written, rerun to resume"
                    )
        bar.close()
    log.info("%s: wrote %d trials in %.0f s", out, written, time.monotonic() - clock)
    return written
