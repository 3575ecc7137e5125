"""The calibration measures against independent computations (brute-force pair counts, hand-computed textbook
values)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slmbench.analysis.stats_bootstrap import cluster_bootstrap
from slmbench.analysis.stats_calibration import (
    auroc,
    brier,
    calibration,
    clustered_calibration,
    ece,
    reliability_bins,
)
from slmbench.records.schema import ModelResponse
from slmbench.tidy.rows import confidence


def test_confidence_is_the_geometric_mean_token_probability_over_every_reply() -> None:
    def reply(*lps: float) -> ModelResponse:
        return ModelResponse(t=0, turn=1, raw_text="x", logprobs=[math.log(p) for p in lps])

    assert confidence([reply(0.5), reply(0.125)]) == pytest.approx(0.25)
    assert confidence([reply(0.5), ModelResponse(t=0, turn=2, raw_text="y")]) is None  # a reply recorded none


def test_brier_and_ece_by_hand() -> None:
    conf, ok = [0.9, 0.8, 0.3, 0.15], [True, False, False, True]
    assert brier(conf, ok) == pytest.approx((0.01 + 0.64 + 0.09 + 0.7225) / 4)
    # bins of width 0.1: 0.9 -> bin 9 (gap 0.1), 0.8 -> bin 8 (gap 0.8), 0.3 -> bin 3 (gap 0.3), 0.15 -> bin 1 (0.85)
    assert ece(conf, ok) == pytest.approx((0.1 + 0.8 + 0.3 + 0.85) / 4)
    assert ece([1.0], [True]) == 0.0  # a confidence of 1 falls in the last bin


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1), st.booleans()), min_size=2, max_size=30))
def test_auroc_is_the_share_of_passed_failed_pairs_ordered_right(rows: list[tuple[float, bool]]) -> None:
    conf, ok = [c for c, _ in rows], [o for _, o in rows]
    pos, neg = [c for c, o in rows if o], [c for c, o in rows if not o]
    if not pos or not neg:
        assert math.isnan(auroc(conf, ok))
        return
    wins = sum(1.0 if p > n else 0.5 if p == n else 0.0 for p, n in itertools.product(pos, neg))
    assert auroc(conf, ok) == pytest.approx(wins / (len(pos) * len(neg)))


def test_calibration_counts_its_trials() -> None:
    got = calibration([0.9, 0.2, 0.6], [True, False, True])
    assert (got.n, got.n_passed, got.auroc) == (3, 2, 1.0)


def test_the_reliability_bins_are_what_ece_weighs() -> None:
    conf, ok = [0.9, 0.95, 0.8, 0.3, 0.15, 1.0], [True, False, False, False, True, True]
    got = reliability_bins(conf, ok)
    assert [(b.lo, b.n) for b in got] == [(0.1, 1), (0.3, 1), (0.8, 1), (0.9, 3)]  # 1.0 in the last bin
    last = got[-1]
    assert (last.confidence, last.passed) == pytest.approx(((0.9 + 0.95 + 1.0) / 3, 2 / 3))
    weighted = sum(b.n * abs(b.confidence - b.passed) for b in got) / len(conf)
    assert ece(conf, ok) == pytest.approx(weighted)


def test_the_clustered_intervals_resample_whole_tasks() -> None:
    """Each measure's estimate is the measure over every trial; its interval is a cluster bootstrap over tasks,
    computed here again by hand from the same draws (the clusters' trials concatenated)."""
    rng = np.random.default_rng(7)
    conf = rng.random(60)
    ok = rng.random(60) < conf
    task = np.repeat([f"t{i:02d}" for i in range(12)], 5)
    got = clustered_calibration(conf, ok, task, n_resamples=300, seed=3)
    assert got["brier"].estimate == pytest.approx(brier(conf, ok))
    assert got["auroc"].estimate == pytest.approx(auroc(conf, ok))
    assert got["ece"].estimate == pytest.approx(ece(conf, ok))
    per_task = pd.DataFrame({"task": range(12), "c": list(conf.reshape(12, 5)), "y": list(ok.reshape(12, 5))})
    again = cluster_bootstrap(
        per_task,
        lambda d: brier(np.concatenate(list(d["c"])), np.concatenate(list(d["y"]))),
        cluster="task",
        n_resamples=300,
        seed=3,
    )
    assert (got["brier"].lo, got["brier"].hi) == pytest.approx((again.lo, again.hi))
    assert got["brier"].n_clusters == 12 and got["brier"].n_valid == 300


def test_without_a_failure_the_auroc_is_undefined_and_has_no_interval() -> None:
    got = clustered_calibration(
        [0.9] * 20 + [0.4] * 20, [True] * 40, [i // 2 for i in range(40)], n_resamples=50
    )
    assert math.isnan(got["auroc"].estimate) and not got["auroc"].computed
    assert got["brier"].estimate == pytest.approx((20 * 0.01 + 20 * 0.36) / 40) and got["brier"].computed


def test_too_few_tasks_give_no_interval() -> None:
    got = clustered_calibration([0.9, 0.2, 0.6], [True, False, True], ["a", "b", "c"], n_resamples=50)
    assert got["ece"].estimate == pytest.approx(ece([0.9, 0.2, 0.6], [True, False, True]))
    assert not got["ece"].computed
