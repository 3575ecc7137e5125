"""TOST of paired binary outcomes against independent references: R outputs of Tango's score interval, a restricted
maximum-likelihood estimate found numerically, McNemar's statistic at a difference of zero, and the duality of the
interval and the two one-sided tests."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import optimize, stats
from statsmodels.stats.weightstats import ttost_paired

from slmbench.analysis.stats_equivalence import score_interval, score_statistic, tost_paired_binary

# R 4.2.2: Tango_asymptotic_score_CI_paired_2x2 of the package contingencytables (Fagerland, Lydersen and Laake,
# "Statistical Analysis of Contingency Tables", chapter 8), on the table n = rbind(c(a, n12), c(n21, d)), where
# the difference is (n12 - n21) / N: here n12 = only_second, n21 = only_first. The TOST p at margin 0.1 is
# max(pnorm(T(-0.1), lower.tail = FALSE), pnorm(T(0.1))) with that package's test statistic T.
R_TANGO = [
    # (only_first, only_second, n, level, lo, hi, tost_p at 0.1)
    (7, 1, 21, 0.95, -0.5172322764, -0.0260030317, 0.9293994877),  # Bentur et al. 2009 (the book's example)
    (16, 6, 161, 0.95, -0.1240234325, -0.0054333957, 0.1058474911),  # Cavo et al. 2012 (the book's example)
    (16, 6, 161, 0.90, -0.1131260531, -0.0150583459, 0.1058474911),
    (20, 40, 160, 0.95, 0.0308645517, 0.2180642442, 0.7007575312),  # PropCIs' scoreci.mp example
    (2, 2, 62, 0.90, -0.0658268026, 0.0658268026, 0.01273749254),
    (2, 3, 124, 0.90, -0.0267113974, 0.0451729743, 0.0008554790733),
    (0, 0, 62, 0.90, -0.0418131689, 0.0418131689, 0.004336658187),
    (0, 0, 2, 0.90, -0.5749693910, 0.5749693910, 0.3186759441),
]


@pytest.mark.parametrize(("b", "c", "n", "level", "lo", "hi", "p"), R_TANGO)
def test_the_score_interval_and_tost_p_equal_r(
    b: int, c: int, n: int, level: float, lo: float, hi: float, p: float
) -> None:
    assert score_interval(b, c, n, level) == pytest.approx((lo, hi), abs=1e-6)
    got = tost_paired_binary(b, c, n, margin=0.1, alpha=(1 - level) / 2)
    assert got.p == pytest.approx(p, rel=1e-6)
    assert got.difference == pytest.approx((c - b) / n)


def _restricted_statistic(b: int, c: int, n: int, d0: float) -> float:
    """The score statistic from the restricted MLE found by maximising the multinomial likelihood numerically over
    the probability of passing only under the first condition, given a difference of ``d0`` (no closed form)."""
    # both discordant probabilities and the concordant rest stay in [0, 1]
    low, high = max(0.0, -d0), (1 - d0) / 2

    def minus_loglik(q: float) -> float:
        q_second = q + d0
        rest = 1 - q - q_second
        terms = [(b, q), (c, q_second), (n - b - c, rest)]
        return -sum(k * math.log(max(prob, 1e-300)) for k, prob in terms if k)

    q = optimize.minimize_scalar(
        minus_loglik, bounds=(low, high), method="bounded", options={"xatol": 1e-13}
    ).x
    return (c - b - n * d0) / math.sqrt(n * (2 * q + d0 * (1 - d0)))


@pytest.mark.parametrize(("b", "c", "n"), [(3, 9, 40), (0, 5, 31), (7, 1, 21), (2, 2, 62), (12, 0, 30)])
@pytest.mark.parametrize("d0", [-0.3, -0.1, 0.05, 0.2])
def test_the_closed_form_equals_a_numerical_restricted_mle(b: int, c: int, n: int, d0: float) -> None:
    assert score_statistic(b, c, n, d0) == pytest.approx(_restricted_statistic(b, c, n, d0), rel=1e-5)


@pytest.mark.parametrize(("b", "c", "n"), [(3, 9, 40), (0, 5, 31), (7, 1, 21), (16, 6, 161)])
def test_at_no_difference_the_statistic_is_mcnemars(b: int, c: int, n: int) -> None:
    assert score_statistic(b, c, n, 0.0) == pytest.approx((c - b) / math.sqrt(b + c))


def test_with_no_discordant_unit_the_interval_narrows_with_n_and_is_never_a_point() -> None:
    """No unit differs: the interval is +-z^2/(n + z^2), so many units show equivalence and few do not (a t test
    on the differences, whose variance is zero, would call both equivalent)."""
    z2 = stats.norm.ppf(0.95) ** 2
    for n in (2, 10, 62, 500):
        got = tost_paired_binary(0, 0, n, margin=0.1)
        assert (got.lo, got.hi) == pytest.approx((-z2 / (n + z2), z2 / (n + z2)), abs=1e-9)
        assert got.difference == 0 and got.equivalent == (z2 / (n + z2) < 0.1)
    assert not tost_paired_binary(0, 0, 2).equivalent and tost_paired_binary(0, 0, 62).equivalent
    with np.errstate(divide="ignore"):  # what the t test makes of two equal pairs: t infinite, p 0
        t_p, _, _ = ttost_paired(np.ones(2), np.ones(2), -0.1, 0.1)
    assert t_p == 0


def test_without_units_nothing_is_shown_and_bad_inputs_are_refused() -> None:
    none = tost_paired_binary(0, 0, 0)
    assert not none.equivalent and math.isnan(none.p) and math.isnan(none.lo) and none.n == 0
    with pytest.raises(ValueError, match="margin"):
        tost_paired_binary(0, 0, 10, margin=0)
    with pytest.raises(ValueError, match="do not fit"):
        tost_paired_binary(6, 5, 10)


def test_a_one_sided_shift_is_not_equivalent_and_all_discordant_ends_at_the_bound() -> None:
    assert not tost_paired_binary(0, 6, 10, margin=0.1).equivalent
    every = tost_paired_binary(0, 10, 10)
    assert every.difference == 1 and every.hi == 1 and not every.equivalent


@settings(max_examples=200, deadline=None)
@given(
    st.integers(1, 150).flatmap(
        lambda n: st.tuples(st.just(n), st.integers(0, n)).flatmap(
            lambda t: st.tuples(st.just(t[0]), st.just(t[1]), st.integers(0, t[0] - t[1]))
        )
    ),
    st.sampled_from([0.05, 0.1, 0.2]),
)
def test_tost_shows_equivalence_exactly_when_the_interval_lies_inside_the_margin(
    counts: tuple[int, int, int], margin: float
) -> None:
    n, b, c = counts
    got = tost_paired_binary(b, c, n, margin=margin, alpha=0.05)
    assert got.lo <= got.difference <= got.hi
    inside = -margin < got.lo and got.hi < margin
    if abs(abs(got.lo) - margin) > 1e-9 and abs(abs(got.hi) - margin) > 1e-9:  # not on the edge
        assert got.equivalent == inside
