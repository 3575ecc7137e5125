"""Thresholds tuned on a calibration split: candidates, the chosen cut and its tie-break."""

import math

from slmbench.analysis.stats_threshold import (
    candidate_cuts,
    margin_cuts,
    reciprocal_rank,
    tied_margins,
    tune_cascade,
    tune_margin,
)


def test_threshold_statistics() -> None:
    assert candidate_cuts([3.0, 1.0, 1.0]) == [-math.inf, 2.0, math.inf]
    assert tune_margin([], []).threshold == 0.0
    # ties between cut-offs: the one closest to 0 wins
    cut = tune_margin([-2.0, 2.0], [False, True])
    assert cut.threshold == 0.0 and cut.k == 2
    assert tune_margin([1.0, 2.0], [True, True]).threshold == 0.0  # 0 splits the items as minus infinity does
    # cascade ties go to fewer model calls
    assert tune_cascade([0.5, 0.5], [True, True], [True, True]).threshold == -math.inf
    assert tune_cascade([0.1, 0.2], [False, False], [True, True]).threshold == math.inf
    assert reciprocal_rank(["b", "a"], "a") == 0.5 and reciprocal_rank(["b"], "a") == 0.0


def test_a_cut_counts_the_candidates_tied_at_its_calibration_accuracy() -> None:
    # every candidate of [1, 2] (minus infinity, 1.5, plus infinity) is right on one of the two items
    assert tune_margin([1.0, 2.0], [True, False]).tied == 2  # -inf and +inf: 1 of 2; 1.5: 0 of 2
    assert tune_margin([-2.0, 2.0], [False, True]).tied == 1
    assert tune_cascade([0.5, 0.5], [True, True], [True, True]).tied == 2
    assert tune_cascade([0.1, 0.2], [False, False], [True, True]).tied == 1


def test_the_tied_cut_offs_are_every_candidate_at_the_best_calibration_accuracy() -> None:
    assert tied_margins([1.0, 2.0], [True, False]) == [0.0, math.inf]
    assert tied_margins([-2.0, 2.0], [False, True]) == [0.0]
    assert tune_margin([1.0, 2.0], [True, False]).threshold in tied_margins([1.0, 2.0], [True, False])


def test_the_untuned_cut_off_wins_a_tie_with_the_midpoint_that_splits_the_items_as_it_does() -> None:
    # no calibration margin lies in [0, 0.02): the cut-offs 0 and 0.02 split the items alike, and the untuned
    # rule (0) is the one the tie rule names, though 0.02 is the midpoint of -0.5 and 0.54
    margins, positive = [-0.5, 0.54, 1.0], [False, True, True]
    assert margin_cuts(margins) == [-math.inf, 0.0, 0.77, math.inf]
    cut = tune_margin(margins, positive)
    assert (cut.threshold, cut.k, cut.tied) == (0.0, 3, 1)
    # a test item at 0.01 is positive under the untuned rule
    assert tied_margins(margins, positive) == [0.0]


def test_the_untuned_cut_off_replaces_an_end_candidate_when_every_margin_lies_on_one_side() -> None:
    assert margin_cuts([1.0, 2.0]) == [0.0, 1.5, math.inf]
    assert margin_cuts([-2.0, -1.0]) == [-math.inf, -1.5, 0.0]
    assert margin_cuts([-1.0, 0.0, 1.0]) == [-math.inf, 0.0, 0.5, math.inf]  # 0 splits as -0.5 does
