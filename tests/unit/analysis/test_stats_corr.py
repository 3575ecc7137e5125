"""Correlations checked against numpy/pandas, the Fisher-z formula, the published study's bootstrap loop and a
brute-force permutation test."""

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr

from slmbench.analysis.stats_corr import (
    bootstrap_pearson_interval,
    correlate,
    fisher_z_interval,
    spearman_permutation_p,
)

X = [1.0, 3.0, 3.8, 7.0, 7.0, 7.0, 7.0, 8.0, 9.0]
Y = [0.355, 0.419, 0.484, 0.258, 0.452, 0.677, 0.677, 0.323, 0.581]


def test_pearson_matches_numpy() -> None:
    c = correlate(X, Y, "pearson")
    assert c.r == pytest.approx(np.corrcoef(X, Y)[0, 1])
    z = math.atanh(c.r)
    se = 1 / math.sqrt(len(X) - 3)
    assert (c.lo, c.hi) == pytest.approx(
        (math.tanh(z - 1.959964 * se), math.tanh(z + 1.959964 * se)), abs=1e-6
    )


def test_spearman_matches_pandas_rank_correlation() -> None:
    c = correlate(X, Y, "spearman")
    assert c.r == pytest.approx(pd.Series(X).corr(pd.Series(Y), method="spearman"))
    assert 0 < c.p < 1


def test_undefined_cases_are_nan() -> None:
    assert math.isnan(correlate([1, 2], [3, 4]).r)
    assert math.isnan(correlate([1, 1, 1, 1], [1, 2, 3, 4]).r)
    assert all(math.isnan(v) for v in fisher_z_interval(0.5, 3))


def _published_loop(x: list[float], y: list[float], n_iter: int, seed: int) -> tuple[float, float]:
    """The published study's bootstrap of Pearson's r, written out as it was: one draw per resample,
    ``np.corrcoef``, constant resamples skipped, 2.5th and 97.5th percentiles."""
    rng = np.random.default_rng(seed)
    xa, ya = np.array(x), np.array(y)
    rs = []
    for _ in range(n_iter):
        idx = rng.integers(0, len(xa), size=len(xa))
        if np.std(xa[idx]) == 0 or np.std(ya[idx]) == 0:
            continue
        rs.append(np.corrcoef(xa[idx], ya[idx])[0, 1])
    return float(np.percentile(rs, 2.5)), float(np.percentile(rs, 97.5))


def test_bootstrap_interval_matches_the_published_loop() -> None:
    lo, hi, n_valid = bootstrap_pearson_interval(X, Y, 3000, 7)
    assert (lo, hi) == pytest.approx(_published_loop(X, Y, 3000, 7), abs=1e-12)
    assert 0 < n_valid <= 3000


def test_bootstrap_interval_skips_constant_resamples() -> None:
    lo, hi, n_valid = bootstrap_pearson_interval([1, 1, 1, 2], [1, 2, 3, 4], 500, 3)
    assert n_valid < 500 and lo <= hi
    assert bootstrap_pearson_interval([1, 2], [1, 2], 10, 1)[2] == 0


def test_spearman_permutation_p_matches_brute_force() -> None:
    x, y = [1.0, 3.0, 3.8, 7.0, 7.0, 8.0, 9.0], [0.35, 0.42, 0.48, 0.26, 0.68, 0.32, 0.58]
    observed = abs(spearmanr(x, y).statistic)
    rhos = [abs(spearmanr(x, [y[i] for i in perm]).statistic) for perm in itertools.permutations(range(7))]
    expected = sum(r >= observed - 1e-12 for r in rhos) / len(rhos)
    assert spearman_permutation_p(x, y) == pytest.approx(expected, abs=1e-15)


def test_spearman_permutation_p_edges() -> None:
    assert spearman_permutation_p([1, 2, 3, 4], [1, 2, 3, 4]) == pytest.approx(2 / 24)  # rho = 1 or -1
    assert math.isnan(spearman_permutation_p([1, 1, 1], [1, 2, 3]))
    with pytest.raises(ValueError, match="at most"):
        spearman_permutation_p(range(11), range(11))
