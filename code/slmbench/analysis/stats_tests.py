"""Hypothesis tests: pairwise paired (exact McNemar) and unpaired (Fisher exact) model comparisons with
Benjamini-Hochberg across pairs, flips, McNemar."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from slmbench.analysis.stats_rates import ALPHA, cohens_h


def fisher_p(k1: int, n1: int, k2: int, n2: int) -> float:
    """Two-sided Fisher exact p-value of the 2x2 table of successes and failures of two samples."""
    from scipy.stats import fisher_exact  # imported on first use (start-up time)

    table = [[k1, n1 - k1], [k2, n2 - k2]]
    return float(fisher_exact(table, alternative="two-sided").pvalue)


@dataclass(frozen=True)
class PairComparison:
    """A two-sided test of two models' accuracies (paired or not), BH-adjusted over all pairs."""

    first: str
    second: str
    p: float
    p_adj: float
    significant: bool
    cohens_h: float
    """nan where it says nothing (both rates 0, or both 1)."""


def pairwise_fisher(counts: dict[str, tuple[int, int]], alpha: float = ALPHA) -> list[PairComparison]:
    """Every pair of models, Fisher exact, Benjamini-Hochberg across the pairs; no model is singled out.

    Args:
        counts: Model -> ``(successes, trials)`` of the models to compare (controls left out by the caller).
        alpha: False discovery rate.
    """
    from statsmodels.stats.multitest import multipletests  # imported on first use (start-up time)

    models = sorted(m for m, (_, n) in counts.items() if n > 0)
    pairs = list(itertools.combinations(models, 2))
    if not pairs:
        return []
    ps = [fisher_p(*counts[a], *counts[b]) for a, b in pairs]
    reject, p_adj, _, _ = multipletests(ps, alpha=alpha, method="fdr_bh")
    out = []
    for (a, b), p, pa, r in zip(pairs, ps, p_adj, reject, strict=True):
        ra, rb = counts[a][0] / counts[a][1], counts[b][0] / counts[b][1]
        degenerate = (ra == rb == 0.0) or (ra == rb == 1.0)
        h = math.nan if degenerate else cohens_h(ra, rb)
        out.append(PairComparison(a, b, p, float(pa), bool(r), h))
    return out


def paired_sign_p(first: pd.Series, second: pd.Series) -> tuple[float, int, int, int]:
    """Exact two-sided sign test of two models' per-unit pass shares over their common units.

    With one outcome per unit (or repeats that agree) this is the exact McNemar test: the units where only one
    model passes are the discordant pairs. Returns ``(p, units, first ahead, second ahead)``; ``p`` is nan
    without a discordant unit.
    """
    common = first.index.intersection(second.index)
    d = first.loc[common].to_numpy(dtype=float) - second.loc[common].to_numpy(dtype=float)
    ahead, behind = int((d > 0).sum()), int((d < 0).sum())
    p = flip_binomial_p(ahead, behind)
    return p, len(common), ahead, behind


def pairwise_paired(shares: dict[str, pd.Series], alpha: float = ALPHA) -> list[PairComparison]:
    """Every pair of models compared unit by unit (``paired_sign_p``), Benjamini-Hochberg across the pairs.

    A pair without a discordant unit has no test (p nan, not significant) and is left out of the adjustment.

    Args:
        shares: Model -> per-unit pass share (index: the unit), controls left out by the caller.
        alpha: False discovery rate.
    """
    models = sorted(m for m, s in shares.items() if len(s))
    pairs = list(itertools.combinations(models, 2))
    ps = [paired_sign_p(shares[a], shares[b])[0] for a, b in pairs]
    p_adj, reject = bh_adjust(ps, alpha)
    out = []
    for (a, b), p, pa, r in zip(pairs, ps, p_adj, reject, strict=True):
        ra, rb = float(shares[a].mean()), float(shares[b].mean())
        degenerate = (ra == rb == 0.0) or (ra == rb == 1.0)
        out.append(PairComparison(a, b, p, pa, r, math.nan if degenerate else cohens_h(ra, rb)))
    return out


def bh_adjust(ps: Sequence[float], alpha: float = ALPHA) -> tuple[list[float], list[bool]]:
    """Benjamini-Hochberg across the tests that exist: a nan p (no test, e.g. no discordant pair) keeps a nan
    adjusted p, is not significant and does not count in the adjustment.

    Returns:
        The adjusted p-values and whether each is below ``alpha``, in the order of ``ps``.
    """
    from statsmodels.stats.multitest import multipletests  # imported on first use (start-up time)

    tested = [i for i, p in enumerate(ps) if math.isfinite(p)]
    p_adj, reject = [math.nan] * len(ps), [False] * len(ps)
    if tested:
        rej, adj, _, _ = multipletests([ps[i] for i in tested], alpha=alpha, method="fdr_bh")
        for i, r, pa in zip(tested, rej, adj, strict=True):
            p_adj[i], reject[i] = float(pa), bool(r)
    return p_adj, reject


@dataclass(frozen=True)
class Paired:
    """Two binary outcomes on the same units: the four cells and the exact McNemar p (nan without a discordant
    unit)."""

    both: int
    only_first: int
    only_second: int
    neither: int

    @property
    def n(self) -> int:
        """Units paired."""
        return self.both + self.only_first + self.only_second + self.neither

    @property
    def p(self) -> float:
        """Exact two-sided McNemar p-value (nan without a discordant unit)."""
        return mcnemar_p(self.both, self.only_first, self.only_second, self.neither)


def paired_outcomes(first: Sequence[bool], second: Sequence[bool]) -> Paired:
    """The paired table of two outcome sequences over the same units, in the same order.

    Raises:
        ValueError: The sequences differ in length.
    """
    if len(first) != len(second):
        raise ValueError("paired outcomes differ in length")
    a, b = [bool(x) for x in first], [bool(x) for x in second]
    both = sum(x and y for x, y in zip(a, b, strict=True))
    only_first = sum(x and not y for x, y in zip(a, b, strict=True))
    only_second = sum(y and not x for x, y in zip(a, b, strict=True))
    return Paired(both, only_first, only_second, len(a) - both - only_first - only_second)


def flip_binomial_p(flips_down: int, flips_up: int) -> float:
    """Exact binomial test that pass->fail and fail->pass flips are equally likely (p = 0.5)."""
    from scipy.stats import binomtest  # imported on first use (start-up time)

    n = flips_down + flips_up
    if n == 0:
        return math.nan
    return float(binomtest(flips_down, n, 0.5, alternative="two-sided").pvalue)


def mcnemar_p(both: int, only_first: int, only_second: int, neither: int, exact: bool = True) -> float:
    """McNemar test p-value of paired binary outcomes given the four cells of the paired table."""
    from statsmodels.stats.contingency_tables import mcnemar  # imported on first use (start-up time)

    if only_first + only_second == 0:
        return math.nan
    table = np.array([[both, only_first], [only_second, neither]])
    return float(mcnemar(table, exact=exact).pvalue)
