"""Correlation of model size with a score: Pearson and Spearman with Fisher-z intervals; the published study's
bootstrap interval of Pearson's r and exact permutation test of Spearman's rho."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

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
    from scipy.stats import norm  # imported on first use (start-up time)

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
    from scipy.stats import pearsonr, spearmanr  # imported on first use (start-up time)

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


def bootstrap_pearson_interval(
    x: Iterable[float], y: Iterable[float], n_resamples: int, seed: int, alpha: float = ALPHA
) -> tuple[float, float, int]:
    """Percentile interval of Pearson's r over resamples of the points, drawn in pairs with replacement.

    ``numpy.random.default_rng(seed)`` draws one ``integers(0, n, size=n)`` per resample; a resample in which
    either variable is constant is skipped; the interval is ``numpy.percentile`` (linear) of the rest. The
    order of the points fixes which points each draw picks.

    Returns:
        ``(lo, hi, n_valid)``: the interval and the number of resamples it was taken over (``nan`` bounds when
        there is none).
    """
    xs, ys = np.asarray(list(x), dtype=float), np.asarray(list(y), dtype=float)
    n = len(xs)
    if n < 3 or n_resamples < 1:
        return math.nan, math.nan, 0
    rng = np.random.default_rng(seed)
    picks = np.stack([rng.integers(0, n, size=n) for _ in range(n_resamples)])
    dx, dy = xs[picks], ys[picks]
    valid = (dx.std(axis=1) != 0) & (dy.std(axis=1) != 0)
    dx, dy = (
        dx[valid] - dx[valid].mean(axis=1, keepdims=True),
        dy[valid] - dy[valid].mean(axis=1, keepdims=True),
    )
    rs = (dx * dy).sum(axis=1) / np.sqrt((dx * dx).sum(axis=1) * (dy * dy).sum(axis=1))
    if not len(rs):
        return math.nan, math.nan, 0
    lo, hi = np.percentile(rs, [100 * alpha / 2, 100 * (1 - alpha / 2)])
    return float(lo), float(hi), len(rs)


MAX_EXACT_PERMUTATION = 10
"""Most points an exact permutation test enumerates (10! pairings)."""


def spearman_permutation_p(x: Iterable[float], y: Iterable[float]) -> float:
    """Two-sided exact permutation p-value of Spearman's rho: the share of all ``n!`` pairings of ``y`` with
    ``x`` whose ``|rho|`` is at least the observed one (average ranks for ties).

    Returns ``nan`` when rho is undefined (fewer than three points or a constant variable).

    Raises:
        ValueError: More than ``MAX_EXACT_PERMUTATION`` points.
    """
    from scipy.stats import rankdata  # imported on first use (start-up time)

    xs, ys = np.asarray(list(x), dtype=float), np.asarray(list(y), dtype=float)
    n = len(xs)
    if n > MAX_EXACT_PERMUTATION:
        raise ValueError(
            f"an exact permutation test enumerates {n}! pairings; at most {MAX_EXACT_PERMUTATION}"
        )
    if n < 3 or np.ptp(xs) == 0 or np.ptp(ys) == 0:
        return math.nan
    rx, ry = rankdata(xs), rankdata(ys)
    rx = rx - rx.mean()
    ry = ry - ry.mean()  # every pairing has the same centred ranks, in another order
    scale = math.sqrt(float((rx * rx).sum() * (ry * ry).sum()))
    observed = abs(float(rx @ ry)) / scale
    hits = total = 0
    pairings = itertools.permutations(range(n))
    while block := list(itertools.islice(pairings, 100_000)):
        rho = np.abs(ry[np.asarray(block)] @ rx) / scale
        hits += int((rho >= observed - 1e-12).sum())
        total += len(block)
    return hits / total
