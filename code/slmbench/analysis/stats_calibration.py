"""Predictability: how well a model's own confidence predicts its success (the reliability taxonomy's fourth
dimension).

A trial's confidence (tidy's ``confidence`` column, ``slmbench.tidy.rows.confidence``) is the geometric mean of the
probabilities the model gave the tokens it generated over every reply of the trial. Against the trials' outcomes: the Brier score (mean squared difference of confidence and success), the AUROC (the probability that a
passed trial had the higher confidence than a failed one, ties counting half: the Mann-Whitney U over n1 n0) and
the expected calibration error over ``ECE_BINS`` equal-width bins of confidence (the trial-weighted mean gap between
a bin's mean confidence and its pass share). ``clustered_calibration`` gives each measure a percentile interval
from resampling clusters (tasks: the samples of one task are not independent draws), ``reliability_bins`` the
points of a reliability diagram over the same bins.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from slmbench.analysis.stats_bootstrap import BootstrapResult, Draw, cluster_bootstrap
from slmbench.analysis.stats_rates import ALPHA
from slmbench.vocab import DEFAULT_BOOTSTRAP_SEED

ECE_BINS = 10
"""Equal-width bins of confidence on [0, 1] for the expected calibration error."""


def brier(confidence: ArrayLike, passed: ArrayLike) -> float:
    """Mean squared difference between confidence and the outcome (1 passed, 0 failed)."""
    c, y = np.asarray(confidence, dtype=float), np.asarray(passed, dtype=float)
    return float(np.mean((c - y) ** 2)) if c.size else float("nan")


def auroc(confidence: ArrayLike, passed: ArrayLike) -> float:
    """Area under the ROC curve of confidence against success; nan without both outcomes."""
    from scipy.stats import mannwhitneyu  # imported on first use (start-up time)

    c, y = np.asarray(confidence, dtype=float), np.asarray(passed, dtype=bool)
    if y.all() or not y.any():
        return float("nan")
    u = mannwhitneyu(c[y], c[~y], alternative="two-sided").statistic
    return float(u) / (int(y.sum()) * int((~y).sum()))


def bin_of(confidence: ArrayLike, bins: int = ECE_BINS) -> np.ndarray:
    """The equal-width bin of each confidence, ``0 .. bins - 1`` (bin ``b`` holds ``[b/bins, (b+1)/bins)``, the
    last bin closed at 1)."""
    c = np.asarray(confidence, dtype=float)
    return np.minimum((c * bins).astype(int), bins - 1)


def ece(confidence: ArrayLike, passed: ArrayLike, bins: int = ECE_BINS) -> float:
    """Expected calibration error over ``bins`` equal-width confidence bins (the last bin closed at 1)."""
    c, y = np.asarray(confidence, dtype=float), np.asarray(passed, dtype=float)
    if not c.size:
        return float("nan")
    which = bin_of(c, bins)
    gaps = [
        abs(c[which == b].mean() - y[which == b].mean()) * (which == b).sum()
        for b in range(bins)
        if (which == b).any()
    ]
    return float(sum(gaps) / c.size)


@dataclass(frozen=True)
class Calibration:
    """Brier score, AUROC and ECE of one set of trials (``n`` trials, ``n_passed`` of them passed)."""

    n: int
    n_passed: int
    brier: float
    auroc: float
    ece: float


def calibration(confidence: ArrayLike, passed: ArrayLike) -> Calibration:
    """The three calibration measures of trials with a confidence."""
    y = np.asarray(passed, dtype=bool)
    return Calibration(int(y.size), int(y.sum()), brier(confidence, passed), auroc(confidence, passed),
                       ece(confidence, passed))  # fmt: skip


@dataclass(frozen=True)
class BinPoint:
    """One non-empty bin of a reliability diagram: its edges, its trials, their mean confidence and pass share."""

    lo: float
    hi: float
    n: int
    confidence: float
    passed: float


def reliability_bins(confidence: ArrayLike, passed: ArrayLike, bins: int = ECE_BINS) -> list[BinPoint]:
    """The non-empty bins of ``bin_of`` with their mean confidence and pass share (what ``ece`` weighs)."""
    c, y = np.asarray(confidence, dtype=float), np.asarray(passed, dtype=float)
    which = bin_of(c, bins)
    return [
        BinPoint(
            b / bins,
            (b + 1) / bins,
            int((which == b).sum()),
            float(c[which == b].mean()),
            float(y[which == b].mean()),
        )  # fmt: skip
        for b in range(bins)
        if (which == b).any()
    ]


Measure = Callable[[ArrayLike, ArrayLike], float]
MEASURES: dict[str, Measure] = {"brier": brier, "auroc": auroc, "ece": ece}
"""The calibration measures by name (the fields of ``Calibration``)."""


def clustered_calibration(
    confidence: ArrayLike,
    passed: ArrayLike,
    cluster: ArrayLike,
    n_resamples: int = 2000,
    seed: int = DEFAULT_BOOTSTRAP_SEED,
    alpha: float = ALPHA,
) -> dict[str, BootstrapResult]:
    """Each measure of ``MEASURES`` with a percentile interval from resampling whole clusters (``cluster`` names
    each trial's; ``stats_bootstrap.cluster_bootstrap``, none below its fewest clusters). A resample without both
    outcomes has no AUROC and is dropped from its interval (``n_valid`` counts the others); where the trials lack
    one outcome the AUROC's estimate is nan."""
    frame = pd.DataFrame(
        {
            "c": np.asarray(confidence, dtype=float),
            "y": np.asarray(passed, dtype=bool),
            "k": np.asarray(cluster),
        }
    )
    groups = frame.groupby("k", sort=True)
    per_cluster = pd.DataFrame(
        {
            "cluster": np.arange(groups.ngroups),
            "c": [g["c"].to_numpy() for _, g in groups],
            "y": [g["y"].to_numpy() for _, g in groups],
        }
    )

    def measure(fn: Measure) -> Callable[[Draw], float]:
        def statistic(draw: Draw) -> float:
            if not len(draw["c"]):
                return math.nan
            return fn(np.concatenate(list(draw["c"])), np.concatenate(list(draw["y"])))

        return statistic

    return {
        name: cluster_bootstrap(
            per_cluster, measure(fn), cluster="cluster", n_resamples=n_resamples, seed=seed, alpha=alpha
        )
        for name, fn in MEASURES.items()
    }
