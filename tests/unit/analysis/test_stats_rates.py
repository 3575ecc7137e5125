"""Rates checked against hand formulas and textbook values."""

import math

import pytest

from slmbench.analysis.stats_rates import cohens_h, is_eligible, newcombe_diff, wilson_interval


def _wilson_by_hand(k: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


@pytest.mark.parametrize(("k", "n"), [(0, 31), (21, 31), (31, 31), (1, 3), (50, 100)])
def test_wilson_matches_hand_formula(k: int, n: int) -> None:
    r = wilson_interval(k, n)
    lo, hi = _wilson_by_hand(k, n)
    assert r.rate == pytest.approx(k / n)
    assert (r.lo, r.hi) == pytest.approx((lo, hi), abs=1e-12)


def test_wilson_empty_is_nan() -> None:
    r = wilson_interval(0, 0)
    assert math.isnan(r.rate) and math.isnan(r.lo) and r.n == 0


def test_newcombe_textbook_example() -> None:
    # Newcombe (1998), Stat Med 17:873, table II example (56/70 vs 48/80): 0.0524 to 0.3339.
    d, lo, hi = newcombe_diff(56, 70, 48, 80)
    assert d == pytest.approx(0.2)
    assert lo == pytest.approx(0.0524, abs=1e-4)
    assert hi == pytest.approx(0.3339, abs=1e-4)


def test_cohens_h_known_values() -> None:
    assert cohens_h(0.5, 0.5) == 0.0
    assert cohens_h(1.0, 0.0) == pytest.approx(math.pi)
    assert cohens_h(0.6774, 0.2581) == pytest.approx(2 * math.asin(0.6774**0.5) - 2 * math.asin(0.2581**0.5))


def test_eligibility_uses_wilson_lower_bound() -> None:
    assert is_eligible(30, 31, baseline=0.2, margin=0.05)
    assert not is_eligible(10, 31, baseline=0.2, margin=0.05)  # rate 32% but lower bound below 25%
    assert not is_eligible(0, 0, baseline=0.0, margin=0.0)


def test_the_wilson_interval_of_a_sum_of_shares_equals_the_whole_count_one() -> None:
    from slmbench.analysis.stats_rates import wilson_interval, wilson_share_interval

    r = wilson_interval(7, 31)
    assert wilson_share_interval(7.0, 31) == pytest.approx((r.lo, r.hi))
    lo, hi = wilson_share_interval(7.5, 31)
    assert r.lo < lo < wilson_interval(8, 31).lo and r.hi < hi < wilson_interval(8, 31).hi
