"""Correlations checked against numpy/pandas and the Fisher-z formula."""

import math

import numpy as np
import pandas as pd
import pytest

from slmbench.analysis.stats_corr import correlate, fisher_z_interval

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
