"""Cluster bootstrap: resamples whole clusters, is seeded, and reports the share keeping a finding."""

import math

import pandas as pd
import pytest

from slmbench.analysis.stats_bootstrap import cluster_bootstrap


def _frame() -> pd.DataFrame:
    rows = []
    for m, rate in (("a", 0.9), ("b", 0.5), ("c", 0.2), ("d", 0.7)):
        rows += [{"model": m, "passed": i < rate * 10} for i in range(10)]
    return pd.DataFrame(rows)


def _boot(df, statistic, **kw):
    """The bootstrap with its cluster minimum lowered, for these four-cluster examples."""
    return cluster_bootstrap(df, statistic, min_clusters=1, **kw)


def _mean_of_models(df: pd.DataFrame) -> float:
    return float(df.groupby("model")["passed"].mean().mean())


def test_seeded_and_reproducible() -> None:
    a = _boot(_frame(), _mean_of_models, n_resamples=200, seed=3)
    b = _boot(_frame(), _mean_of_models, n_resamples=200, seed=3)
    assert a == b
    assert a.estimate == pytest.approx(0.575)
    assert a.lo <= a.estimate <= a.hi


def test_resamples_clusters_not_rows() -> None:
    # every resampled model mean is one of the four model means, so the mean of models is a mean of those
    seen: list[int] = []

    def n_clusters(df: pd.DataFrame) -> float:
        seen.append(df["model"].nunique())
        return float(len(df))

    res = _boot(_frame(), n_clusters, n_resamples=50, seed=1)
    assert res.lo == res.hi == 40.0  # always four clusters of ten rows
    assert all(n == 4 for n in seen)


def test_kept_share() -> None:
    res = _boot(_frame(), _mean_of_models, finding=lambda v: v > 0.2, n_resamples=100, seed=0)
    assert res.kept == pytest.approx(1.0 - 0.25**4, abs=0.05)


def test_too_few_clusters_are_not_resampled() -> None:
    """Four models are too few for a model-level bootstrap: nothing but the estimate is reported."""
    res = cluster_bootstrap(_frame(), _mean_of_models, finding=lambda v: v > 0.2, n_resamples=100)
    assert not res.computed and res.n_clusters == 4 and res.n_valid == 0
    assert math.isnan(res.lo) and math.isnan(res.kept) and res.estimate == pytest.approx(0.575)


def test_kept_counts_undefined_resamples_as_not_kept() -> None:
    """A resample whose statistic is nan keeps no finding: kept is a share of all resamples."""

    def defined_only_with_a(df: pd.DataFrame) -> float:
        return 1.0 if df["model"].str.startswith("a").any() else float("nan")

    res = _boot(_frame(), defined_only_with_a, finding=lambda v: v == 1.0, n_resamples=400, seed=2)
    assert res.n_valid < res.n_resamples
    assert res.kept == pytest.approx(res.n_valid / res.n_resamples)
    assert res.kept == pytest.approx(1 - 0.75**4, abs=0.06)
