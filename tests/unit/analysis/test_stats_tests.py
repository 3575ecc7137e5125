"""Tests checked against R values and hand computations."""

import math

import pytest
from scipy.special import comb
from scipy.stats import binomtest

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


def test_paired_comparisons_are_exact_mcnemar_tests_on_the_common_tasks_with_bh() -> None:
    """Against scipy's exact binomial test on the discordant tasks and statsmodels' Benjamini-Hochberg."""
    import pandas as pd
    from scipy.stats import binomtest
    from statsmodels.stats.multitest import multipletests

    from slmbench.analysis.stats_tests import pairwise_paired

    tasks = [f"T{i}" for i in range(10)]
    a = pd.Series([1, 1, 1, 1, 1, 1, 0, 0, 0, 0], index=tasks, dtype=float)
    b = pd.Series([0, 0, 0, 0, 0, 1, 0, 0, 0, 0], index=tasks, dtype=float)
    c = pd.Series([1, 1, 1, 1, 1, 1, 1, 0, 0], index=tasks[:9], dtype=float)  # one task fewer
    got = {(x.first, x.second): x for x in pairwise_paired({"a": a, "b": b, "c": c})}
    raw = {
        ("a", "b"): binomtest(5, 5).pvalue,  # a alone passes 5 tasks, b alone none
        ("a", "c"): binomtest(0, 1).pvalue,  # on the 9 common tasks c alone passes T6
        ("b", "c"): binomtest(0, 6).pvalue,
    }
    adjusted = multipletests(list(raw.values()), method="fdr_bh")[1]
    for (pair, p), p_adj in zip(raw.items(), adjusted, strict=True):
        assert got[pair].p == pytest.approx(p) and got[pair].p_adj == pytest.approx(p_adj)


def test_a_pair_without_a_discordant_task_has_no_test() -> None:
    import math

    import pandas as pd

    from slmbench.analysis.stats_tests import pairwise_paired

    same = pd.Series([1.0, 0.0], index=["T1", "T2"])
    (only,) = pairwise_paired({"a": same, "b": same})
    assert math.isnan(only.p) and math.isnan(only.p_adj) and not only.significant


def test_paired_outcomes_and_bh_over_the_tests_that_exist() -> None:
    from slmbench.analysis.stats_tests import bh_adjust, paired_outcomes

    pair = paired_outcomes([True, True, False, False, True], [True, False, True, False, False])
    assert (pair.both, pair.only_first, pair.only_second, pair.neither, pair.n) == (1, 2, 1, 1, 5)
    assert pair.p == pytest.approx(binomtest(1, 3, 0.5).pvalue)
    assert math.isnan(paired_outcomes([True], [True]).p)
    adj, rej = bh_adjust([0.01, math.nan, 0.04], alpha=0.05)
    assert adj[0] == pytest.approx(0.02) and math.isnan(adj[1]) and adj[2] == pytest.approx(0.04)
    assert rej == [True, False, True]
    with pytest.raises(ValueError, match="length"):
        paired_outcomes([True], [])
