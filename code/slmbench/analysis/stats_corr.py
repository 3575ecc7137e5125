"""Correlation of model size with a score: Pearson and Spearman with Fisher-z intervals."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from scipy.stats import norm, pearsonr, spearmanr

from slmbench.analysis.stats_rates import ALPHA


@dataclass(frozen=True)
class Correlation:
    """A correlation coefficient with its p-value and Fisher-z interval."""

    r: float
    p: float
    lo: float
    hi: float
    n: int


_UNDEFINED = Correlation(math.nan, math.nan, math.nan, math.nan, 0)


def fisher_z_interval(r: float, n: int, alpha: float = ALPHA) -> tuple[float, float]:
    """Interval ``tanh(atanh(r) -+ z / sqrt(n - 3))``; ``nan`` when ``n <= 3`` or ``|r| == 1``."""
    if n <= 3 or not math.isfinite(r) or abs(r) >= 1.0:
        return math.nan, math.nan
    z, se = math.atanh(r), 1.0 / math.sqrt(n - 3)
    q = float(norm.ppf(1 - alpha / 2))
    return math.tanh(z - q * se), math.tanh(z + q * se)


def correlate(
    x: Iterable[float], y: Iterable[float], method: str = "pearson", alpha: float = ALPHA
) -> Correlation:
    """Pearson or Spearman correlation of ``x`` and ``y``.

    Returns ``nan`` fields when fewer than three points or a constant variable make it undefined.
    """
    xs, ys = np.asarray(list(x), dtype=float), np.asarray(list(y), dtype=float)
    n = len(xs)
    if n < 3 or np.ptp(xs) == 0 or np.ptp(ys) == 0:
        return Correlation(math.nan, math.nan, math.nan, math.nan, n)
    if method == "pearson":
        res = pearsonr(xs, ys)
    elif method == "spearman":
        res = spearmanr(xs, ys)
    else:
        raise ValueError(f"unknown correlation method {method!r}")
    r, p = float(res.statistic), float(res.pvalue)
    lo, hi = fisher_z_interval(r, n, alpha)
    return Correlation(r=r, p=p, lo=lo, hi=hi, n=n)
