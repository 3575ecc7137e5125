"""Hypothesis tests: Fisher exact against the leader (with Benjamini-Hochberg), flips, McNemar."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.stats import binomtest, fisher_exact
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests

from slmbench.analysis.stats_rates import ALPHA, cohens_h


@dataclass(frozen=True)
class Comparison:
    """One model compared with the leader."""

    model: str
    p: float
    p_adj: float
    significant: bool
    cohens_h: float


def fisher_p(k1: int, n1: int, k2: int, n2: int) -> float:
    """Two-sided Fisher exact p-value of the 2x2 table of successes and failures of two samples."""
    table = [[k1, n1 - k1], [k2, n2 - k2]]
    return float(fisher_exact(table, alternative="two-sided").pvalue)


def compare_to_leader(
    counts: dict[str, tuple[int, int]], leader: str, alpha: float = ALPHA
) -> list[Comparison]:
    """Fisher exact test of every model against ``leader``, adjusted with Benjamini-Hochberg.

    Args:
        counts: Model -> ``(successes, trials)``; models with no trials are skipped.
        leader: The model every other one is compared with.
        alpha: False discovery rate.

    Returns:
        One comparison per other model, in sorted model order.
    """
    k_l, n_l = counts[leader]
    others = sorted(m for m, (_, n) in counts.items() if m != leader and n > 0)
    if not others or n_l == 0:
        return []
    ps = [fisher_p(k_l, n_l, *counts[m]) for m in others]
    reject, p_adj, _, _ = multipletests(ps, alpha=alpha, method="fdr_bh")
    return [
        Comparison(
            model=m,
            p=p,
            p_adj=float(pa),
            significant=bool(r),
            cohens_h=cohens_h(k_l / n_l, counts[m][0] / counts[m][1]),
        )
        for m, p, pa, r in zip(others, ps, p_adj, reject, strict=True)
    ]


def flip_binomial_p(flips_down: int, flips_up: int) -> float:
    """Exact binomial test that pass->fail and fail->pass flips are equally likely (p = 0.5)."""
    n = flips_down + flips_up
    if n == 0:
        return math.nan
    return float(binomtest(flips_down, n, 0.5, alternative="two-sided").pvalue)


def mcnemar_p(both: int, only_first: int, only_second: int, neither: int, exact: bool = True) -> float:
    """McNemar test p-value of paired binary outcomes given the four cells of the paired table."""
    if only_first + only_second == 0:
        return math.nan
    table = np.array([[both, only_first], [only_second, neither]])
    return float(mcnemar(table, exact=exact).pvalue)
