"""Cluster bootstrap: resample whole models (not runs) to see how much a finding depends on which models."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from slmbench.analysis.stats_rates import ALPHA
from slmbench.vocab import DEFAULT_BOOTSTRAP_SEED


@dataclass(frozen=True)
class BootstrapResult:
    """The statistic on the data, its percentile interval, and the share of resamples keeping a finding."""

    estimate: float
    lo: float
    hi: float
    kept: float
    n_resamples: int
    n_valid: int
    n_clusters: int = 0

    @property
    def computed(self) -> bool:
        """False when there were too few clusters to resample (every field but ``estimate`` is nan)."""
        return self.n_valid > 0


MIN_CLUSTERS = 8
"""Fewer clusters than this and a cluster bootstrap says little: it is not computed (reported as n/a)."""


def cluster_bootstrap(
    df: pd.DataFrame,
    statistic: Callable[[pd.DataFrame], float],
    cluster: str = "model",
    finding: Callable[[float], bool] | None = None,
    n_resamples: int = 2000,
    seed: int = DEFAULT_BOOTSTRAP_SEED,
    alpha: float = ALPHA,
    min_clusters: int = MIN_CLUSTERS,
) -> BootstrapResult:
    """Resample clusters with replacement and recompute ``statistic`` on the stacked rows.

    Drawn copies of a cluster are relabelled (``<name>#<i>``) so a statistic that groups by the cluster
    sees them as distinct clusters.

    Args:
        df: Rows, one column naming the cluster.
        statistic: Maps a frame to a number (``nan`` allowed; such resamples are dropped).
        cluster: The cluster column.
        finding: Predicate on a resampled statistic; ``kept`` is the share of ALL resamples where it holds
            (a resample whose statistic is undefined does not keep the finding).
        n_resamples: Number of resamples.
        seed: Seed of the generator (results are bit-reproducible for a given seed).
        alpha: One minus the coverage of the percentile interval.
        min_clusters: Below this many clusters nothing is resampled (interval and ``kept`` are nan).
    """
    estimate = float(statistic(df))
    names = sorted(df[cluster].unique())
    if len(names) < max(1, min_clusters):
        return BootstrapResult(estimate, math.nan, math.nan, math.nan, n_resamples, 0, len(names))
    codes = pd.Categorical(df[cluster], categories=names).codes
    members = [np.flatnonzero(codes == j) for j in range(len(names))]
    labels = np.asarray(names, dtype=object)
    rng = np.random.default_rng(seed)
    values: list[float] = []
    for _ in range(n_resamples):
        picks = rng.integers(0, len(names), size=len(names))
        rows = np.concatenate([members[j] for j in picks])
        tags = np.concatenate([[f"{labels[j]}#{i}"] * len(members[j]) for i, j in enumerate(picks)])
        sample = df.iloc[rows].reset_index(drop=True)
        sample[cluster] = tags
        value = float(statistic(sample))
        if math.isfinite(value):
            values.append(value)
    if not values:
        return BootstrapResult(estimate, math.nan, math.nan, math.nan, n_resamples, 0, len(names))
    arr = np.asarray(values)
    lo, hi = np.quantile(arr, [alpha / 2, 1 - alpha / 2])
    kept = sum(finding(v) for v in values) / n_resamples if finding is not None else math.nan
    return BootstrapResult(estimate, float(lo), float(hi), kept, n_resamples, len(values), len(names))
