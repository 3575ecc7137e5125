"""Tests checked against R values and hand computations."""

import math

import pytest
from scipy.special import comb

from slmbench.analysis.stats_tests import compare_to_leader, fisher_p, flip_binomial_p, mcnemar_p


def test_fisher_matches_r() -> None:
    # R: fisher.test(matrix(c(3, 1, 1, 3), 2))$p.value == 0.4857143
    assert fisher_p(3, 4, 1, 4) == pytest.approx(0.4857143, abs=1e-7)
    assert fisher_p(21, 31, 8, 31) == pytest.approx(_fisher_by_hand(21, 31, 8, 31))


def _fisher_by_hand(k1: int, n1: int, k2: int, n2: int) -> float:
    """Sum of hypergeometric probabilities of tables no more likely than the observed one."""
    total, succ = n1 + n2, k1 + k2

    def prob(a: int) -> float:
        return comb(succ, a) * comb(total - succ, n1 - a) / comb(total, n1)

    observed = prob(k1)
    lo, hi = max(0, succ - n2), min(succ, n1)
    return sum(prob(a) for a in range(lo, hi + 1) if prob(a) <= observed * (1 + 1e-7))


def test_bh_adjustment_by_hand() -> None:
    counts = {"lead": (21, 31), "a": (8, 31), "b": (18, 31), "c": (11, 31)}
    comps = {c.model: c for c in compare_to_leader(counts, "lead")}
    ps = sorted((c.p, m) for m, c in comps.items())
    m = len(ps)
    adj: dict[str, float] = {}
    running = 1.0
    for i in range(m - 1, -1, -1):
        running = min(running, ps[i][0] * m / (i + 1))
        adj[ps[i][1]] = running
    for name, c in comps.items():
        assert c.p_adj == pytest.approx(adj[name])
    assert comps["a"].significant and not comps["b"].significant
    assert comps["a"].cohens_h > 0


def test_flip_binomial_by_hand() -> None:
    # two-sided exact test of 8 vs 1 with p=0.5: 2 * P(X <= 1) for X ~ Bin(9, 0.5)
    expected = 2 * (comb(9, 0) + comb(9, 1)) / 2**9
    assert flip_binomial_p(8, 1) == pytest.approx(expected)
    assert math.isnan(flip_binomial_p(0, 0))


def test_exact_mcnemar_equals_binomial_on_discordant() -> None:
    assert mcnemar_p(10, 8, 1, 5) == pytest.approx(flip_binomial_p(8, 1))
