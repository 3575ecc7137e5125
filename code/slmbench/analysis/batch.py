"""The topics of the trials table in one process: the tidy tables read once, each topic computed in a forked
worker.

At a million trials a topic run alone spends about 3 s before it computes anything (starting Python and pandas,
importing ``scipy.stats``, reading its columns); nine such processes cost about 27 s of CPU. Here the parent
reads the union of the columns the topics read and imports them once; each topic then runs in a worker forked
from it (``jobs`` at a time, the longest first, one topic per worker so that its memory goes when it ends),
computed from exactly the columns it reads when run alone, so its document equals ``slmbench analyze``'s.
"""

from __future__ import annotations

import multiprocessing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from slmbench.analysis.io import compute_document, dump_json, read_trials, write_atomic
from slmbench.analysis.topics import TOPIC_INPUTS, TRIAL_TOPICS, event_columns, get_topic, large_text_read

LONGEST_FIRST = ("protocol", "reliability", "boundary", "context", "capability", "external", "scaffold",
                 "temperature", "failures")  # fmt: skip
"""The trial topics by their time alone at a million trials (bench/analysis_scale.py), longest first: started
in this order, two workers finish together sooner."""
assert set(LONGEST_FIRST) == set(TRIAL_TOPICS)


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
    readers = [t for t in topics if "events" in TOPIC_INPUTS[t]]
    wanted = [event_columns(t) for t in readers]
    columns = None if any(c is None for c in wanted) else sorted({c for cols in wanted for c in cols or []})
    for topic in topics:
        get_topic(topic)  # imported once, before forking
    _BATCH = Batch(
        trials=read_trials(trials, large),
        events=pd.read_parquet(events, columns=columns) if events is not None and readers else None,
        summary=summary,
        params=params,
        outs=outs,
    )
    order = [t for t in LONGEST_FIRST if t in topics]
    try:
        if jobs <= 1 or len(order) <= 1:
            return dict(_run_one(t) for t in order)
        with multiprocessing.get_context("fork").Pool(min(jobs, len(order)), maxtasksperchild=1) as pool:
            return dict(pool.imap_unordered(_run_one, order))
    finally:
        _BATCH = None


def _run_one(topic: str) -> tuple[str, int]:
    """One topic of the batch, on the columns it reads alone; writes its document."""
    batch = _BATCH
    assert batch is not None, "run_topics sets the batch before its workers start"
    from slmbench.tidy import LARGE_TEXT_COLUMNS

    left_out = set(LARGE_TEXT_COLUMNS) - set(large_text_read(topic))
    trials = batch.trials[[c for c in batch.trials.columns if c not in left_out]]
    events = None
    if batch.events is not None and "events" in TOPIC_INPUTS[topic]:
        columns = event_columns(topic)
        events = batch.events if columns is None else batch.events[columns]
    summary = batch.summary if "summary" in TOPIC_INPUTS[topic] else None
    doc = compute_document(topic, trials, events, batch.params[topic], summary)
    write_atomic(batch.outs[topic], dump_json(doc, compact=True))
    return topic, len(doc["numbers"])
