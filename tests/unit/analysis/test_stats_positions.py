"""Position bias: counts per position, the most answered position, chance-corrected accuracy (against statsmodels'
Cohen's kappa) and the prior-debiased answer, on hand-computed cases."""

import math

import pytest

from slmbench.analysis.stats_positions import (
    PositionCount,
    chance_corrected,
    debiased_answer,
    mode_position,
    position_counts,
    position_prior,
)
from slmbench.eligibility.kappa import cohen_kappa

ANSWERS = ["1", "1", "1", "2"]
GOLD = ["1", "2", "3", "2"]


def test_position_counts() -> None:
    assert position_counts(ANSWERS, GOLD) == [
        PositionCount("1", 3, 1, 1), PositionCount("2", 1, 2, 1), PositionCount("3", 0, 1, 0),
    ]  # fmt: skip
    assert [c.position for c in position_counts(["10", "2"], ["9", "1"])] == [
        "1",
        "2",
        "9",
        "10",
    ]  # numeric order
    with pytest.raises(ValueError, match="length"):
        position_counts(["1"], [])


def test_mode_position_ties_go_to_the_lower_position() -> None:
    assert mode_position(ANSWERS) == "1"
    assert mode_position(["3", "2", "3", "2", "10"]) == "2"
    assert mode_position([]) is None


def test_chance_corrected_is_cohens_kappa() -> None:
    # p_o = 2/4; p_e = (3*1 + 1*2 + 0*1) / 16 = 5/16; kappa = (1/2 - 5/16) / (11/16) = 3/11
    assert chance_corrected(ANSWERS, GOLD) == pytest.approx(3 / 11)
    assert chance_corrected(ANSWERS, GOLD) == pytest.approx(cohen_kappa(ANSWERS, GOLD))
    assert chance_corrected(["1"] * 4, ["1", "2", "1", "2"]) == pytest.approx(
        0.0
    )  # one habit: nothing above chance
    assert chance_corrected(["1", "2"], ["1", "2"]) == pytest.approx(1.0)
    assert math.isnan(chance_corrected([], [])) and math.isnan(chance_corrected(["1"], ["1"]))


def test_prior_and_debiased_answer() -> None:
    est = [{"1": math.log(0.8), "2": math.log(0.2)}, {"1": math.log(0.6), "2": math.log(0.4)}]
    prior = position_prior(est)
    assert prior == pytest.approx({"1": 0.7, "2": 0.3})
    # 0.6/0.7 < 0.4/0.3: the habit of answering 1 divided out, 2 wins; 0.75/0.7 > 0.25/0.3: 1 stays
    assert debiased_answer({"1": math.log(0.6), "2": math.log(0.4)}, prior) == "2"
    assert debiased_answer({"1": math.log(0.75), "2": math.log(0.25)}, prior) == "1"
    # scores are log-likelihoods: only their differences matter
    assert debiased_answer({"1": math.log(0.6) - 7, "2": math.log(0.4) - 7}, prior) == "2"
    # a tie goes to the earlier candidate; a position without a prior keeps its probability
    assert debiased_answer({"2": 0.0, "1": 0.0}, {}) == "1"
    assert debiased_answer({"1": 0.0, "2": 0.0, "3": 0.0}, {"1": 0.5, "2": 0.5}) == "1"
