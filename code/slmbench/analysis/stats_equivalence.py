"""Equivalence of two paired conditions with binary outcomes: TOST (two one-sided tests) on the difference of
paired proportions, each a score test for matched pairs (Tango 1998; Nam 1997).

"No difference" is never read from a large p of a difference test. Two conditions run on the same units (a task,
or a task-model pair, each passed or failed under both) are shown equivalent within a stated margin ``m`` when both
one-sided tests reject: the difference in accuracy (second minus first) is above ``-m`` and below ``+m``. Each
one-sided test is Tango's score test of ``H0: difference = -m`` (against greater) and ``= +m`` (against less); the
TOST p is the larger of the two. The interval reported beside it is Tango's score interval at level ``1 - 2 alpha``
(90 % for alpha 0.05), the one TOST's decision matches: equivalence is shown exactly when that interval lies inside
``(-m, m)``.

Why not a t test on the per-unit differences (statsmodels' ``ttost_paired``): with binary outcomes the differences
are -1, 0 or +1, and with no discordant unit their variance is zero, where the t statistic is infinite and
``ttost_paired`` returns p = 0 ("equivalent") for any n, even n = 2; with few discordant units the t interval is the
Wald interval of the paired difference, which covers too rarely (Newcombe 1998). The score test needs neither fix:
with no discordant unit its interval is ``+-z^2 / (n + z^2)``, narrow for many units and wide for few, so no special
rule is needed, and at a difference of 0 its statistic is McNemar's asymptotic one.

The score statistic (Tango 1998, eq. 3; the restricted maximum-likelihood estimate of Nam 1997) is

    T(d0) = (c - b - n d0) / sqrt(n (2 q + d0 (1 - d0)))

with ``b`` the units that passed only under the first condition, ``c`` those that passed only under the second,
``n`` all units and ``q`` the restricted estimate of the probability of passing only under the first given a
difference of ``d0``, the root of ``2n q^2 + B q + C = 0`` with ``B = -b - c + (2n - c + b) d0`` and
``C = -b d0 (1 - d0)``. ``T`` decreases in ``d0``; the interval's ends solve ``T = +z`` and ``T = -z``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from slmbench.analysis.stats_rates import ALPHA
from slmbench.vocab import DEFAULT_EQUIVALENCE_MARGIN

_EDGE = 1e-12
"""How close to -1 and +1 the interval's ends are searched for (the statistic is undefined at the bounds)."""


@dataclass(frozen=True)
class Equivalence:
    """TOST of two paired conditions: ``n`` units, the difference in accuracy (second minus first), its
    ``1 - 2 alpha`` score interval (``lo``, ``hi``), the TOST p-value (the larger one-sided p) and whether the two
    are equivalent within ``margin`` (nan and False without units)."""

    n: int
    difference: float
    lo: float
    hi: float
    p: float
    margin: float
    equivalent: bool


def score_statistic(only_first: int, only_second: int, n: int, d0: float) -> float:
    """Tango's score statistic of ``H0: difference = d0`` (second minus first; see the module doc): positive
    where the observed difference is above ``d0``. Zero where the observed difference equals ``d0``."""
    b, c = only_first, only_second
    numerator = c - b - n * d0
    if numerator == 0:
        return 0.0
    big_b = -b - c + (2 * n - c + b) * d0
    big_c = -b * d0 * (1 - d0)
    q = (math.sqrt(max(big_b * big_b - 8 * n * big_c, 0.0)) - big_b) / (4 * n)
    variance = n * (2 * q + d0 * (1 - d0))
    if variance <= 0:
        return math.copysign(math.inf, numerator)
    return numerator / math.sqrt(variance)


def score_interval(only_first: int, only_second: int, n: int, level: float) -> tuple[float, float]:
    """Tango's score interval of the difference (second minus first) at confidence ``level`` (two-sided)."""
    from scipy import optimize, stats  # imported on first use (start-up time)

    if n <= 0:
        return math.nan, math.nan
    z = float(stats.norm.ppf(0.5 + level / 2))
    estimate = (only_second - only_first) / n

    def shifted(d0: float, target: float) -> float:
        return score_statistic(only_first, only_second, n, d0) - target

    lo = -1.0 if estimate <= -1 else optimize.brentq(shifted, -1 + _EDGE, estimate, args=(z,), xtol=1e-12)
    hi = 1.0 if estimate >= 1 else optimize.brentq(shifted, estimate, 1 - _EDGE, args=(-z,), xtol=1e-12)
    return float(lo), float(hi)


def tost_paired_binary(
    only_first: int,
    only_second: int,
    n: int,
    margin: float = DEFAULT_EQUIVALENCE_MARGIN,
    alpha: float = ALPHA,
) -> Equivalence:
    """TOST of the difference in accuracy (second minus first) of ``n`` paired units with binary outcomes, of
    which ``only_first`` passed only under the first condition and ``only_second`` only under the second.

    Raises:
        ValueError: a margin outside (0, 1), or counts that do not fit in ``n``.
    """
    from scipy import stats  # imported on first use (start-up time)

    if not 0 < margin < 1:
        raise ValueError(f"an equivalence margin is a difference in accuracy between 0 and 1, not {margin}")
    if min(only_first, only_second, n) < 0 or only_first + only_second > n:
        raise ValueError(f"{only_first} and {only_second} discordant units do not fit in {n}")
    if n == 0:
        return Equivalence(0, math.nan, math.nan, math.nan, math.nan, margin, False)
    lower = float(stats.norm.sf(score_statistic(only_first, only_second, n, -margin)))
    upper = float(stats.norm.cdf(score_statistic(only_first, only_second, n, margin)))
    p = max(lower, upper)
    lo, hi = score_interval(only_first, only_second, n, 1 - 2 * alpha)
    return Equivalence(n, (only_second - only_first) / n, lo, hi, p, margin, p < alpha)
