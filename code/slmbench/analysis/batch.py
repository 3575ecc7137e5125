"""The topics of the trials table in one process: the tidy tables read once, each topic computed in a forked
worker.

At a million trials a topic run alone spends about 3 s before it computes anything (starting Python and pandas,
importing ``scipy.stats``, reading its columns); nine such processes cost about 27 s of CPU. Here the parent
reads the union of the columns the topics read and imports them once; each topic then runs in a worker forked
from it (``jobs`` at a time, the longest first, never two of the largest at once, one process per topic so that
its memory goes when it ends), computed from exactly the columns it reads when run alone, so its document equals
``slmbench analyze``'s.
"""

from __future__ import annotations

import multiprocessing
import traceback
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

import pandas as pd

from slmbench.analysis.io import compute_document, read_trials
from slmbench.analysis.topics import (
    TOPIC_INPUTS,
    TRIAL_TOPICS,
    audit_read,
    event_columns,
    get_topic,
    large_text_read,
)
from slmbench.records.atomic import dump_json, write_atomic

LONGEST_FIRST = ("protocol", "reliability", "boundary", "context", "capability", "external", "scaffold", "serving",
                 "reliability_taxonomy", "task_robustness", "temperature", "failures", "task_consistency",
                 "imported", "rejudged")  # fmt: skip
"""The trial topics by their time alone at a million trials (bench/analysis_scale.py), longest first: started
in this order, two workers finish together sooner."""
assert set(LONGEST_FIRST) == set(TRIAL_TOPICS)

LARGEST = frozenset({"protocol", "boundary"})
"""The topics of the largest memory at a million trials (bench/analysis_scale.py, each alone): never two of
them at once, so that the batch's peak is the parent's tables and one large topic beside a small one."""
assert LARGEST <= set(TRIAL_TOPICS)


def next_topic(waiting: list[str], running: set[str]) -> str | None:
    """The first of ``waiting`` that may start beside ``running``: not a second of ``LARGEST``."""
    busy = bool(running & LARGEST)
    return next((t for t in waiting if not (busy and t in LARGEST)), None)


@dataclass(frozen=True)
class Batch:
    """What every worker reads: the tables (read once, before forking) and each topic's parameters and file."""

    trials: pd.DataFrame
    events: pd.DataFrame | None
    summary: Path | None
    params: dict[str, dict[str, Any]]
    outs: dict[str, Path]


_BATCH: Batch | None = None
"""The batch of the running ``run_topics``: set before the workers fork, which inherit it."""


def run_topics(
    topics: list[str],
    trials: Path,
    events: Path | None,
    summary: Path | None,
    params: dict[str, dict[str, Any]],
    outs: dict[str, Path],
    jobs: int,
) -> dict[str, int]:
    """Compute ``topics`` (trial topics) and write each one's document to ``outs[topic]``; returns the number of
    numbers of each. ``params`` holds each topic's parameters as ``slmbench analyze`` builds them."""
    global _BATCH
    unknown = sorted(set(topics) - set(TRIAL_TOPICS))
    if unknown:
        raise ValueError(f"not topics of the trials table: {unknown}; they are {', '.join(TRIAL_TOPICS)}")
    large = tuple(sorted({c for t in topics for c in large_text_read(t)}))
    audit = tuple(sorted({c for t in topics for c in audit_read(t)}))
    readers = [t for t in topics if "events" in TOPIC_INPUTS[t]]
    wanted = [event_columns(t) for t in readers]
    columns = None if any(c is None for c in wanted) else sorted({c for cols in wanted for c in cols or []})
    for topic in topics:
        get_topic(topic)  # imported once, before forking
    _BATCH = Batch(
        trials=read_trials(trials, large, audit),
        events=pd.read_parquet(events, columns=columns) if events is not None and readers else None,
        summary=summary,
        params=params,
        outs=outs,
    )
    order = [t for t in LONGEST_FIRST if t in topics]
    try:
        if jobs <= 1 or len(order) <= 1:
            return dict(_run_one(t) for t in order)
        return _run_forked(order, jobs)
    finally:
        _BATCH = None


def _run_forked(order: list[str], jobs: int) -> dict[str, int]:
    """The topics of ``order`` in up to ``jobs`` forked workers at once, one process per topic (its memory goes
    when it ends), started in that order as ``next_topic`` allows. A worker's exception is raised here, with
    its traceback as a note, once the other workers are stopped."""
    context = multiprocessing.get_context("fork")
    waiting = list(order)
    running: dict[
        int, tuple[str, BaseProcess, Connection]
    ] = {}  # sentinel -> (topic, process, its result's end)
    counts: dict[str, int] = {}
    try:
        while waiting or running:
            while len(running) < jobs and (topic := next_topic(waiting, {t for t, _, _ in running.values()})):
                waiting.remove(topic)
                result, sender = context.Pipe(duplex=False)
                process: BaseProcess = context.Process(target=_worker, args=(topic, sender), name=topic)
                process.start()
                sender.close()
                running[process.sentinel] = (topic, process, result)
            for sentinel in wait(list(running)):
                assert isinstance(sentinel, int), "wait returns the process sentinels it was given"
                topic, process, result = running.pop(sentinel)
                process.join()
                message = _received(result)
                if message[0] != "ok":
                    error = message[1] or RuntimeError(
                        f"topic {topic}: worker exited with {process.exitcode}"
                    )
                    if message[2]:
                        error.add_note(f"in topic {topic}'s worker:\n{message[2]}")
                    raise error
                counts[topic] = message[1]
    finally:
        for _, process, _ in running.values():
            process.terminate()
            process.join()
    return counts


def _received(result: Connection) -> tuple[str, Any, str]:
    """What a finished worker sent: ("ok", count, "") or ("error", exception or None, traceback)."""
    try:
        return result.recv() if result.poll() else ("error", None, "")  # type: ignore[no-any-return]
    except EOFError:  # it ended without sending
        return ("error", None, "")


def _worker(topic: str, result: Connection) -> None:
    """A forked worker: one topic, its number count or its exception sent back."""
    try:
        result.send(("ok", _run_one(topic)[1], ""))
    except BaseException as error:  # noqa: BLE001  (every failure goes back to the parent)
        try:
            result.send(("error", error, traceback.format_exc()))
        except Exception:  # noqa: BLE001  (an exception that cannot be pickled)
            result.send(("error", RuntimeError(f"{type(error).__name__}: {error}"), traceback.format_exc()))
        raise SystemExit(1) from None


def _run_one(topic: str) -> tuple[str, int]:
    """One topic of the batch, on the columns it reads alone; writes its document."""
    batch = _BATCH
    assert batch is not None, "run_topics sets the batch before its workers start"
    from slmbench.tidy import AUDIT_COLUMNS, LARGE_TEXT_COLUMNS

    left_out = (set(LARGE_TEXT_COLUMNS) - set(large_text_read(topic))) | (
        set(AUDIT_COLUMNS) - set(audit_read(topic))
    )
    trials = batch.trials[[c for c in batch.trials.columns if c not in left_out]]
    events = None
    if batch.events is not None and "events" in TOPIC_INPUTS[topic]:
        columns = event_columns(topic)
        events = batch.events if columns is None else batch.events[columns]
    summary = batch.summary if "summary" in TOPIC_INPUTS[topic] else None
    doc = compute_document(topic, trials, events, batch.params[topic], summary)
    write_atomic(batch.outs[topic], dump_json(doc, compact=True))
    return topic, len(doc["numbers"])
