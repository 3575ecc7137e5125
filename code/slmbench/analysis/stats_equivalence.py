"""Equivalence of two paired conditions: TOST (two one-sided tests) on the per-unit difference of outcomes.

"No difference" is never read from a large p of a difference test. Two conditions run on the same units (tasks)
are shown equivalent within a stated margin when both one-sided tests reject: the mean paired difference is above
``-margin`` and below ``+margin`` (statsmodels' ``ttost_paired``: paired t-tests on the per-unit differences). The
interval reported beside it is the ``1 - 2 alpha`` interval of the mean difference, the one TOST's decision
matches.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats
from statsmodels.stats.weightstats import ttost_paired

from slmbench.analysis.stats_rates import ALPHA

EQUIVALENCE_MARGIN = 0.10
"""The default margin: ten percentage points of accuracy on the same tasks."""


@dataclass(frozen=True)
class Equivalence:
    """TOST of two paired conditions: the mean difference (second minus first), its ``1 - 2 alpha`` interval,
    the TOST p-value (the larger one-sided p) and whether the two are equivalent within ``margin``."""

    n: int
    difference: float
    lo: float
    hi: float
    p: float
    margin: float
    equivalent: bool


def tost_paired(first: Sequence[float], second: Sequence[float], margin: float = EQUIVALENCE_MARGIN,
                alpha: float = ALPHA) -> Equivalence:  # fmt: skip
    """TOST of ``second - first`` over paired units (e.g. each task's pass share under two conditions).

    With every difference zero the interval is [0, 0] and the conditions are equivalent for any positive margin
    (the t statistic is undefined there; the sample shows no difference at all). With fewer than two units nothing
    can be shown: p is nan and ``equivalent`` is False.
    """
    x, y = np.asarray(first, dtype=float), np.asarray(second, dtype=float)
    if x.shape != y.shape:
        raise ValueError(f"paired samples differ in length: {x.shape} and {y.shape}")
    n = int(x.size)
    diff = y - x
    mean = float(diff.mean()) if n else float("nan")
    if n < 2:
        return Equivalence(n, mean, float("nan"), float("nan"), float("nan"), margin, False)
    if not diff.any():
        return Equivalence(n, 0.0, 0.0, 0.0, 0.0, margin, True)
    p, _, _ = ttost_paired(y, x, -margin, margin)
    se = float(diff.std(ddof=1)) / math.sqrt(n)
    half = float(stats.t.ppf(1 - alpha, n - 1)) * se
    return Equivalence(n, mean, mean - half, mean + half, float(p), margin, bool(p < alpha))
