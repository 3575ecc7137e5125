"""Cluster bootstrap: resample whole models (not runs) to see how much a finding depends on which models."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping
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

    @property
    def collapsed(self) -> bool:
        """Resampled, but the percentile interval has zero width (every cluster, or nearly, at one value): it
        says nothing about the uncertainty and is not reported as an interval."""
        return self.computed and self.lo == self.hi

    @property
    def interval(self) -> tuple[float, float]:
        """``(lo, hi)`` to report: nan for both where there is no interval (not computed, or ``collapsed``)."""
        return (math.nan, math.nan) if self.collapsed else (self.lo, self.hi)


MIN_CLUSTERS = 8
"""Fewer clusters than this and a cluster bootstrap says little: it is not computed (reported as n/a)."""


Draw = Mapping[str, np.ndarray]
"""The columns of the clusters one resample drew, one entry per draw (a cluster drawn twice is there twice)."""


def finite_mean(values: np.ndarray) -> float:
    """Mean of the finite values (nan when there is none): a mean over models that skips undefined ones."""
    values = np.asarray(values, dtype=float)
    values = values[np.isfinite(values)]
    return float(values.mean()) if values.size else math.nan


@functools.lru_cache(maxsize=16)
def _picks(seed: int, n: int, n_resamples: int) -> np.ndarray:
    """The clusters each resample draws (one row per resample), from a generator seeded with ``seed``: a topic
    that resamples many sets of the same size draws them once (read-only)."""
    rng = np.random.default_rng(seed)
    picks = (
        np.stack([rng.integers(0, n, size=n) for _ in range(n_resamples)])
        if n_resamples
        else np.zeros((0, n), dtype=np.intp)
    )
    picks.setflags(write=False)
    return picks


def cluster_bootstrap(
    per_cluster: pd.DataFrame,
    statistic: Callable[[Draw], float] | Callable[[Draw], np.ndarray],
    cluster: str = "model",
    finding: Callable[[float], bool] | None = None,
    n_resamples: int = 2000,
    seed: int = DEFAULT_BOOTSTRAP_SEED,
    alpha: float = ALPHA,
    min_clusters: int = MIN_CLUSTERS,
    batched: bool = False,
) -> BootstrapResult:
    """Resample clusters with replacement and recompute ``statistic`` on the drawn clusters.

    Each cluster is summarised once, as one row (its accuracy, its counts), so a resample costs an index into
    those rows, not a copy of the trials: every statistic of the study is a function of per-model summaries.

    Args:
        per_cluster: One row per cluster, one column naming it.
        statistic: Maps the drawn rows' columns (``Draw``) to a number (``nan`` allowed; such resamples are
            dropped). The estimate is the statistic of every cluster drawn once.
        cluster: The cluster column.
        finding: Predicate on a resampled statistic; ``kept`` is the share of ALL resamples where it holds
            (a resample whose statistic is undefined does not keep the finding).
        n_resamples: Number of resamples.
        seed: Seed of the generator (results are bit-reproducible for a given seed).
        alpha: One minus the coverage of the percentile interval.
        min_clusters: Below this many clusters nothing is resampled (interval and ``kept`` are nan).
        batched: ``statistic`` also takes every resample at once (each column an array of resamples x
            clusters; one value per resample back): the same draws and values, without a Python call per
            resample.

    Raises:
        ValueError: A cluster has more than one row.
    """
    if per_cluster[cluster].duplicated().any():
        raise ValueError(f"cluster_bootstrap takes one row per {cluster}; summarise each cluster first")
    rows = per_cluster.sort_values(cluster, kind="stable")
    columns = {str(c): rows[c].to_numpy() for c in rows.columns}
    estimate = float(statistic(columns))
    n = len(rows)
    if n < max(1, min_clusters):
        return BootstrapResult(estimate, math.nan, math.nan, math.nan, n_resamples, 0, n)
    picks = _picks(seed, n, n_resamples)  # the same draws either way
    if batched and len(picks):
        drawn = np.asarray(statistic({c: v[picks] for c, v in columns.items()}), dtype=float)
    else:
        drawn = np.array([float(statistic({c: v[p] for c, v in columns.items()})) for p in picks])
    values = [float(v) for v in drawn if math.isfinite(v)]
    if not values:
        return BootstrapResult(estimate, math.nan, math.nan, math.nan, n_resamples, 0, n)
    arr = np.asarray(values)
    lo, hi = np.quantile(arr, [alpha / 2, 1 - alpha / 2])
    kept = sum(finding(v) for v in values) / n_resamples if finding is not None else math.nan
    return BootstrapResult(estimate, float(lo), float(hi), kept, n_resamples, len(values), n)
