"""in_flight: N calls at once, results as they finish; and a shard run with N trials in flight."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from tests.fixtures import scripted_shard

from slmbench.records.compare import compare_shards
from slmbench.records.ledger import iter_records
from slmbench.run.inflight import in_flight


class _Gauge:
    """Counts the calls running at once. The first calls meet at a barrier (so they run at once whenever the pool
    allows it), and call 0 then waits until call ``releaser`` has started, which can happen only after
    ``releaser - first + 1`` other calls have finished and been handed back: that many results come back before call 0,
    whatever the timing (which of them is left to the scheduler)."""

    def __init__(self, first: int = 3, releaser: int = 5) -> None:
        self.now = self.peak = 0
        self.started: list[int] = []
        self._lock = threading.Lock()
        self._first = first
        self._meet = threading.Barrier(first)
        self._releaser = releaser
        self._released = threading.Event()

    def __call__(self, item: int) -> int:
        with self._lock:
            self.now += 1
            self.peak = max(self.peak, self.now)
            self.started.append(item)
        if item == self._releaser:
            self._released.set()
        if item < self._first:
            self._meet.wait(timeout=10)
        if item == 0:
            self._released.wait(timeout=10)
        with self._lock:
            self.now -= 1
        return item


def test_one_at_a_time_runs_in_the_callers_thread_in_order() -> None:
    threads: list[str] = []

    def call(item: int) -> int:
        threads.append(threading.current_thread().name)
        return item * 2

    assert list(in_flight(range(5), call, 1)) == [0, 2, 4, 6, 8]
    assert set(threads) == {threading.current_thread().name}


def test_n_in_flight_start_in_order_and_come_back_as_they_finish() -> None:
    gauge = _Gauge()
    results = list(in_flight(range(12), gauge, 3))
    assert sorted(results) == list(range(12)) and results.index(0) >= 3  # each once; three overtake call 0
    assert (
        gauge.peak == 3 and set(gauge.started[:3]) == {0, 1, 2} and sorted(gauge.started) == list(range(12))
    )


def test_closing_early_starts_no_further_call() -> None:
    gauge = _Gauge(first=4, releaser=1)
    results = in_flight(range(100), gauge, 4)
    first = next(results)
    results.close()
    assert first in range(4) and len(gauge.started) <= 5 and gauge.now == 0  # the running ones finished


def test_a_failing_call_is_raised_to_the_caller() -> None:
    def call(item: int) -> int:
        if item == 2:
            raise KeyError("bad item")
        return item

    with pytest.raises(KeyError, match="bad item"):
        list(in_flight(range(6), call, 2))
    with pytest.raises(ValueError, match="n must be >= 1"):
        list(in_flight(range(3), call, 0))


def test_a_shard_with_four_trials_in_flight_records_each_trial_once_as_sequentially(tmp_path: Path) -> None:
    sequential, parallel = tmp_path / "n1.jsonl", tmp_path / "n4.jsonl"
    assert scripted_shard.run(sequential, 4, 3, sleep_s=0.01) == 12
    assert scripted_shard.run(parallel, 4, 3, sleep_s=0.05, concurrency=4) == 12  # overlap: the gauge test
    records = [r for _, r in iter_records(parallel)]
    assert {r.provenance["settings"]["concurrency"] for r in records} == {4}
    comparison = compare_shards(sequential, parallel)
    assert comparison.equal and len(comparison.same) == 12
    assert scripted_shard.run(parallel, 4, 3, concurrency=4) == 0  # resumed: nothing left to do
