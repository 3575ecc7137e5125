"""Topic ``protocol``: the smallest accuracy gain the design detects with 80 % power."""

import math

import pytest
from scipy.stats import norm

from slmbench.analysis.topics.protocol import detectable_difference


def test_the_detectable_gain_is_cohens_h_of_a_two_sided_normal_test() -> None:
    """Two groups of n: Cohen's h = (z_{1-alpha/2} + z_{power}) * sqrt(2 / n), turned back into a rate."""
    n, baseline = 93, 0.3
    h = (norm.ppf(0.975) + norm.ppf(0.8)) * math.sqrt(2 / n)
    expected = math.sin(math.asin(math.sqrt(baseline)) + h / 2) ** 2 - baseline
    assert detectable_difference(n, baseline, 0.05) == pytest.approx(expected, rel=1e-3)
    assert math.isnan(detectable_difference(1, 0.5, 0.05))


def test_power_counts_identical_repeats_once(numbers: dict) -> None:
    """Three byte-identical repeats of a task carry the information of one: the effective n counts tasks."""
    assert numbers["proto.power.qa.n"] == 6 and numbers["proto.power.pooled.n"] == 12
    assert numbers["proto.power.qa.n-trials"] == 18 and numbers["proto.power.pooled.n-trials"] == 36
    assert numbers["proto.power.qa.mdd"] == pytest.approx(detectable_difference(6, 4 / 6, 0.05))


def test_the_power_computation_states_its_level_power_and_observed_rate(numbers: dict) -> None:
    """What the text needs to state the method: alpha, the power and the rate the gain is added to."""
    assert numbers["proto.power.alpha"] == 0.05 and numbers["proto.power.power"] == 0.8
    assert numbers["proto.power.qa.base"] == pytest.approx(4 / 6)
    assert numbers["proto.power.qa.mdd"] == pytest.approx(
        detectable_difference(numbers["proto.power.qa.n"], numbers["proto.power.qa.base"], 0.05)
    )
