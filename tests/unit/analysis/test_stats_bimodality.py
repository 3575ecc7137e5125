"""Sarle's bimodality coefficient against scipy's bias-corrected moments and its textbook limits."""

import math

import numpy as np
import pytest
from scipy.stats import kurtosis, skew

from slmbench.analysis.stats_bimodality import BIMODAL_THRESHOLD, bimodality_coefficient


def _reference(xs: list[float]) -> float:
    n = len(xs)
    g, k = skew(xs, bias=False), kurtosis(xs, fisher=True, bias=False)
    return float((g**2 + 1) / (k + 3 * (n - 1) ** 2 / ((n - 2) * (n - 3))))


@pytest.mark.parametrize(
    "xs",
    [
        [0, 0, 0, 0, 0.5, 0.5, 0.5, 0.5, 1],
        [1, 0, 1, 0, 1, 0, 0, 0, 1, 1, 0, 1, 0, 0, 0, 0],
        [1, 2, 3, 10, 11, 12],
    ],
)
def test_matches_scipy_moments(xs: list[float]) -> None:
    assert bimodality_coefficient(xs) == pytest.approx(_reference(xs), rel=1e-12)


def test_limits_two_point_masses_uniform_normal() -> None:
    rng = np.random.default_rng(0)
    assert bimodality_coefficient([0.0] * 5000 + [1.0] * 5000) == pytest.approx(1.0, abs=1e-3)
    assert bimodality_coefficient(np.linspace(0, 1, 20001)) == pytest.approx(BIMODAL_THRESHOLD, abs=1e-3)
    assert bimodality_coefficient(rng.normal(size=200_000)) == pytest.approx(1 / 3, abs=0.01)


def test_undefined_for_few_or_constant_values() -> None:
    assert math.isnan(bimodality_coefficient([0, 1, 0]))
    assert math.isnan(bimodality_coefficient([0.5] * 8))
