"""The trial topics' batch: which topic starts next, and a worker's failure raised in the parent."""

from __future__ import annotations

import pandas as pd
import pytest

from slmbench.analysis import batch
from slmbench.analysis.batch import LARGEST, LONGEST_FIRST, next_topic


def test_two_of_the_largest_topics_never_run_at_once() -> None:
    first, second = [t for t in LONGEST_FIRST if t in LARGEST][:2]
    waiting = list(LONGEST_FIRST)
    assert next_topic(waiting, set()) == LONGEST_FIRST[0]
    small = next(t for t in waiting if t not in LARGEST)
    assert next_topic(waiting, {first}) == next(t for t in waiting if t not in LARGEST)
    assert next_topic([second, small], {first}) == small
    assert next_topic([second], {first}) is None
    assert next_topic([second], {small}) == second


def test_the_batch_never_runs_two_of_the_largest_at_once(monkeypatch, tmp_path) -> None:
    """Every topic runs, in its own forked worker, with the largest ones one after the other."""
    log = tmp_path / "log"

    def fake_run_one(topic: str) -> tuple[str, int]:
        import os
        import time

        with log.open("a") as out:
            out.write(f"start {topic} {os.getpid()}\n")
        time.sleep(0.05)
        with log.open("a") as out:
            out.write(f"end {topic}\n")
        return topic, len(topic)

    monkeypatch.setattr(batch, "_run_one", fake_run_one)
    counts = batch._run_forked(list(LONGEST_FIRST), 2)
    assert counts == {t: len(t) for t in LONGEST_FIRST}
    running: set[str] = set()
    pids = set()
    for line in log.read_text().splitlines():
        kind, topic, *pid = line.split()
        if kind == "start":
            running.add(topic)
            pids.add(pid[0])
            assert len(running) <= 2 and len(running & LARGEST) <= 1, running
        else:
            running.discard(topic)
    assert len(pids) == len(LONGEST_FIRST)  # one process per topic


def test_a_failing_topic_is_raised_with_its_name(monkeypatch) -> None:
    def failing(topic: str) -> tuple[str, int]:
        if topic == "capability":
            raise KeyError("no column 'passed'")
        return topic, 0

    monkeypatch.setattr(batch, "_run_one", failing)
    with pytest.raises(KeyError, match="passed") as caught:
        batch._run_forked(list(LONGEST_FIRST), 2)
    assert any("in topic capability's worker" in note for note in caught.value.__notes__)


def test_a_worker_that_dies_is_an_error_naming_its_topic(monkeypatch) -> None:
    def dying(topic: str) -> tuple[str, int]:
        import os

        os._exit(3)

    monkeypatch.setattr(batch, "_run_one", dying)
    with pytest.raises(RuntimeError, match=r"topic \w+: worker exited with 3"):
        batch._run_forked(["failures", "temperature"], 2)


def test_a_worker_reads_the_parents_columns_without_the_large_text_it_does_not_read(
    monkeypatch, tmp_path
) -> None:
    """The worker's frame leaves out the large text its topic does not read, and shares the other columns'
    data with the parent's table (no copy per worker)."""
    import numpy as np

    table = pd.DataFrame(
        {
            "passed": np.ones(10, dtype=bool),
            "n": np.arange(10.0),
            "answer": pd.array(["a"] * 10, "string"),
            "m": 1.0,
        }
    )
    seen: list[pd.DataFrame] = []

    def compute(topic, trials, events, params, summary):  # noqa: ANN001, ANN202
        seen.append(trials)
        return {"numbers": [1, 2]}

    monkeypatch.setattr(batch, "compute_document", compute)
    out = tmp_path / "capability.json"
    monkeypatch.setattr(
        batch, "_BATCH", batch.Batch(table, None, None, {"capability": {}}, {"capability": out})
    )
    assert batch._run_one("capability") == ("capability", 2)
    (trials,) = seen
    assert list(trials.columns) == ["passed", "n", "m"]
    assert np.shares_memory(trials["n"].to_numpy(), table["n"].to_numpy())
    assert out.exists()
