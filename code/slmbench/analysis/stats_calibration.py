"""Predictability: how well a model's own confidence predicts its success (the reliability taxonomy's fourth
dimension).

A trial's confidence (tidy's ``confidence`` column, ``slmbench.tidy.rows.confidence``) is the geometric mean of the
probabilities the model gave the tokens it generated over every reply of the trial. Against the trials' outcomes: the Brier score (mean squared difference of confidence and success), the AUROC (the probability that a
passed trial had the higher confidence than a failed one, ties counting half: the Mann-Whitney U over n1 n0) and
the expected calibration error over ``ECE_BINS`` equal-width bins of confidence (the trial-weighted mean gap between
a bin's mean confidence and its pass share).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.stats import mannwhitneyu

ECE_BINS = 10
"""Equal-width bins of confidence on [0, 1] for the expected calibration error."""


def brier(confidence: Sequence[float], passed: Sequence[bool]) -> float:
    """Mean squared difference between confidence and the outcome (1 passed, 0 failed)."""
    c, y = np.asarray(confidence, dtype=float), np.asarray(passed, dtype=float)
    return float(np.mean((c - y) ** 2)) if c.size else float("nan")


def auroc(confidence: Sequence[float], passed: Sequence[bool]) -> float:
    """Area under the ROC curve of confidence against success; nan without both outcomes."""
    c, y = np.asarray(confidence, dtype=float), np.asarray(passed, dtype=bool)
    if y.all() or not y.any():
        return float("nan")
    u = mannwhitneyu(c[y], c[~y], alternative="two-sided").statistic
    return float(u) / (int(y.sum()) * int((~y).sum()))


def ece(confidence: Sequence[float], passed: Sequence[bool], bins: int = ECE_BINS) -> float:
    """Expected calibration error over ``bins`` equal-width confidence bins (the last bin closed at 1)."""
    c, y = np.asarray(confidence, dtype=float), np.asarray(passed, dtype=float)
    if not c.size:
        return float("nan")
    which = np.minimum((c * bins).astype(int), bins - 1)
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


def calibration(confidence: Sequence[float], passed: Sequence[bool]) -> Calibration:
    """The three calibration measures of trials with a confidence."""
    y = np.asarray(passed, dtype=bool)
    return Calibration(int(y.size), int(y.sum()), brier(confidence, passed), auroc(confidence, passed),
                       ece(confidence, passed))  # fmt: skip
