"""Rates: Wilson intervals, Newcombe differences, Cohen's h and the eligibility test."""

from __future__ import annotations

import math
from dataclasses import dataclass

ALPHA = 0.05


@dataclass(frozen=True)
class Rate:
    """A proportion ``k / n`` with its Wilson interval (``nan`` everywhere when ``n == 0``)."""

    k: int
    n: int
    rate: float
    lo: float
    hi: float


def wilson_interval(k: int, n: int, alpha: float = ALPHA) -> Rate:
    """Return ``k / n`` with its two-sided Wilson score interval.

    Args:
        k: Successes.
        n: Trials.
        alpha: One minus the confidence level.
    """
    if n == 0:
        return Rate(k=0, n=0, rate=math.nan, lo=math.nan, hi=math.nan)
    if not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    from statsmodels.stats.proportion import proportion_confint  # imported on first use (start-up time)

    lo, hi = proportion_confint(k, n, alpha=alpha, method="wilson")
    return Rate(k=int(k), n=int(n), rate=k / n, lo=float(lo), hi=float(hi))


def wilson_share_interval(successes: float, n: int, alpha: float = ALPHA) -> tuple[float, float]:
    """Wilson score interval of ``successes / n`` where ``successes`` may be fractional (a sum of per-unit pass
    shares); equal to ``wilson_interval``'s for whole counts. ``(nan, nan)`` when ``n == 0``."""
    if n == 0:
        return math.nan, math.nan
    if not -1e-9 <= successes <= n + 1e-9:
        raise ValueError(f"need 0 <= successes <= n, got {successes}, n={n}")
    from statsmodels.stats.proportion import proportion_confint

    lo, hi = proportion_confint(successes, n, alpha=alpha, method="wilson")
    return float(lo), float(hi)


def newcombe_diff(k1: float, n1: int, k2: float, n2: int, alpha: float = ALPHA) -> tuple[float, float, float]:
    """Difference ``k1/n1 - k2/n2`` of independent proportions with Newcombe's hybrid score interval.

    Newcombe (1998), method 10: combines the two Wilson intervals. A ``k`` may be fractional (a sum of per-unit
    shares, as for ``wilson_share_interval``); for whole counts this is the textbook interval.

    Returns:
        ``(difference, lo, hi)``; all ``nan`` if either sample is empty.
    """
    if n1 == 0 or n2 == 0:
        return math.nan, math.nan, math.nan
    (l1, u1), (l2, u2) = wilson_share_interval(k1, n1, alpha), wilson_share_interval(k2, n2, alpha)
    r1, r2 = k1 / n1, k2 / n2
    d = r1 - r2
    lo = d - math.sqrt((r1 - l1) ** 2 + (u2 - r2) ** 2)
    hi = d + math.sqrt((u1 - r1) ** 2 + (r2 - l2) ** 2)
    return d, lo, hi


def cohens_h(p1: float, p2: float) -> float:
    """Cohen's h effect size ``2 asin(sqrt(p1)) - 2 asin(sqrt(p2))``."""
    return 2.0 * math.asin(math.sqrt(p1)) - 2.0 * math.asin(math.sqrt(p2))


def is_eligible(k: float, n: int, baseline: float, margin: float, alpha: float = ALPHA) -> bool:
    """Whether the Wilson lower bound of ``k / n`` beats ``baseline + margin`` (``k`` may be a sum of shares)."""
    if n == 0:
        return False
    return wilson_share_interval(k, n, alpha)[0] > baseline + margin
