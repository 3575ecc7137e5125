"""Tests checked against R values and hand computations."""

import math

import pytest
from scipy.special import comb

from slmbench.analysis.stats_tests import fisher_p, flip_binomial_p, mcnemar_p, pairwise_fisher


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


def test_pairwise_bh_adjustment_by_hand() -> None:
    """Every pair is tested (no model picked post hoc); BH adjusts across all of them."""
    counts = {"lead": (21, 31), "a": (8, 31), "b": (18, 31), "c": (11, 31)}
    comps = {(c.first, c.second): c for c in pairwise_fisher(counts)}
    assert len(comps) == 6
    ps = sorted((c.p, pair) for pair, c in comps.items())
    m = len(ps)
    adj: dict[tuple[str, str], float] = {}
    running = 1.0
    for i in range(m - 1, -1, -1):
        running = min(running, ps[i][0] * m / (i + 1))
        adj[ps[i][1]] = running
    for pair, c in comps.items():
        assert c.p_adj == pytest.approx(adj[pair])
        assert c.p == pytest.approx(fisher_p(*counts[pair[0]], *counts[pair[1]]))
    assert comps[("a", "lead")].significant and not comps[("b", "lead")].significant


def test_cohens_h_is_undefined_where_it_says_nothing() -> None:
    comps = pairwise_fisher({"x": (0, 31), "y": (0, 31), "z": (31, 31), "w": (31, 31)})
    by_pair = {(c.first, c.second): c for c in comps}
    assert math.isnan(by_pair[("x", "y")].cohens_h) and math.isnan(by_pair[("w", "z")].cohens_h)
    assert by_pair[("x", "z")].cohens_h == pytest.approx(-math.pi)


def test_flip_binomial_by_hand() -> None:
    # two-sided exact test of 8 vs 1 with p=0.5: 2 * P(X <= 1) for X ~ Bin(9, 0.5)
    expected = 2 * (comb(9, 0) + comb(9, 1)) / 2**9
    assert flip_binomial_p(8, 1) == pytest.approx(expected)
    assert math.isnan(flip_binomial_p(0, 0))


def test_exact_mcnemar_equals_binomial_on_discordant() -> None:
    assert mcnemar_p(10, 8, 1, 5) == pytest.approx(flip_binomial_p(8, 1))
