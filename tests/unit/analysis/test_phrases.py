"""Every phrase the paper prints, rendered for its edge values: none may be false for its inputs."""

from __future__ import annotations

import math

import pytest

from slmbench.analysis import phrases as ph


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ((None, math.nan, 0), "no instruction-tuned model was run"),
        (("m", math.nan, 1), "only one instruction-tuned model was run, so none can be ranked"),
        ((None, 0.0, 3), "no instruction-tuned model leads all others: the best share the top accuracy"),
        ((None, 0.0, 2, 2, 0.0), "neither instruction-tuned model passed a task"),
        ((None, 0.0, 3, 3, 0.0), "no instruction-tuned model passed a task"),
        ((None, 0.0, 2, 2, 0.4), "no instruction-tuned model leads all others: both have the same accuracy"),
        (
            (None, 0.0, 3, 3, 0.4),
            "no instruction-tuned model leads all others: all three have the same accuracy",
        ),
        ((None, 0.0, 4, 2, 0.4), "no instruction-tuned model leads all others: two share the top accuracy"),
        ((None, 1.0, 3), "no instruction-tuned model leads all others: the best two are one task apart"),
        (
            (None, 2.0, 3),
            "no instruction-tuned model is significantly ahead of all others (the best leads the next best by 2 tasks)",
        ),
        (
            ("qwen", 9.0, 3),
            "qwen is ahead of every other instruction-tuned model, by 9 tasks or more and in every pairwise test",
        ),
    ],
)
def test_top_phrase(args, expected):
    assert ph.top_phrase(*args) == expected


@pytest.mark.parametrize(
    ("n_sig", "n_tests", "expected"),
    [
        (0, 0, "there is no pair of instruction-tuned models to compare"),
        (0, 1, "the one pairwise test does not show a difference"),
        (1, 1, "the one pairwise difference is significant"),
        (0, 3, "none of the three pairwise tests shows a difference after Benjamini--Hochberg"),
        (1, 3, "one of the three pairwise differences is significant after Benjamini--Hochberg"),
        (2, 3, "two of the three pairwise differences are significant after Benjamini--Hochberg"),
        (3, 3, "all three pairwise differences are significant after Benjamini--Hochberg"),
    ],
)
def test_pairs_phrase(n_sig, n_tests, expected):
    assert ph.pairs_phrase(n_sig, n_tests) == expected


def test_a_pairs_phrase_never_reads_a_test_that_shows_nothing_as_sameness():
    for n_sig, n_tests in ((0, 1), (0, 3), (1, 3)):
        text = ph.pairs_phrase(n_sig, n_tests)
        assert "no significant difference" not in text and "no difference" not in text and "same" not in text
    assert ph.pairs_phrase(0, 1, 0, 0.1) == (
        "the one pairwise test does not show a difference, and equivalence within \u00b110 percentage points (TOST)"
        " is not shown"
    )
    assert ph.pairs_phrase(0, 1, 1, 0.1).endswith("(TOST) is shown")
    assert ph.pairs_phrase(0, 3, 0, 0.1).endswith("is shown for none of the three pairs")
    five = "within \u00b15 percentage points (TOST) is shown for two of the three pairs"
    assert ph.pairs_phrase(1, 3, 2, 0.05).endswith(five)
    assert ph.pairs_phrase(0, 3, 3, 0.1).endswith("is shown for all of the three pairs")
    # TOST does not apply: no claim either way
    assert ph.pairs_phrase(0, 3, None, 0.1) == ph.pairs_phrase(0, 3)


def test_the_equivalence_phrase_states_unit_n_interval_p_and_a_plain_verdict():
    args = (124, ("task--model pair", "task--model pairs"), 1 / 124, -0.0267, 0.0452, 0.000855, 0.1, 0.9)
    assert ph.equivalence_phrase(*args, True) == (
        "over 124 task--model pairs the difference is +0.8 percentage points (90% interval -2.7 to +4.5; TOST"
        " p < 0.001): equivalent within \u00b110 percentage points"
    )
    wide = ph.equivalence_phrase(2, ("task", "tasks"), 0.0, -0.575, 0.575, 0.319, 0.1, 0.9, False)
    assert wide == (
        "over two tasks the difference is 0.0 percentage points (90% interval -57.5 to +57.5; TOST p = 0.319):"
        " equivalence within \u00b110 percentage points is not shown"
    )
    nan = math.nan
    none = ph.equivalence_phrase(0, ("task", "tasks"), nan, nan, nan, nan, 0.1, 0.9, False)
    assert none == "with no tasks paired, equivalence within \u00b110 percentage points is not shown"


def test_size_phrase_never_interprets_a_correlation_of_few_models():
    assert ph.size_phrase(1) == "with one instruction-tuned model no size correlation can be computed"
    assert "not interpreted" in ph.size_phrase(3) and "three instruction-tuned models" in ph.size_phrase(3)
    assert "not interpreted" in ph.size_phrase(4)
    assert ph.size_phrase(9).startswith("across nine instruction-tuned models")


def test_bootstrap_phrase():
    assert ph.bootstrap_phrase(4, 0, 2000).startswith("with four models, too few to resample")
    assert ph.bootstrap_phrase(1, 0, 2000).startswith("with one model, too few")
    assert ph.bootstrap_phrase(9, 1750, 2000) == "1750 of 2000 model resamples gave a defined value"
    assert ph.bootstrap_phrase(9, 2000, 2000) == "all 2000 model resamples gave a defined value"


def test_resampled_phrase_at_its_edges():
    nan = math.nan
    assert ph.resampled_phrase(nan, nan, 4, 0, 2000).startswith("with four models, too few to resample")
    assert ph.resampled_phrase(nan, 0.1, 9, 12, 2000).startswith("with nine models, too few to resample")
    assert ph.resampled_phrase(0.0, 0.0, 9, 2000, 2000) == "resampling models, its interval collapses at 0.0%"
    assert ph.resampled_phrase(-0.05, 0.1, 9, 2000, 2000) == (
        "resampling models, its interval runs from -5.0% to 10.0%"
    )


def test_interval_phrase_says_what_a_degenerate_interval_is():
    assert ph.interval_phrase(0.0, 0.0) == "with an interval collapsed at 0.0%"
    assert ph.interval_phrase(0.0, 0.112) == "from 0.0% to 11.2%"
    assert ph.interval_phrase(math.nan, 0.1) == "with no interval"


@pytest.mark.parametrize(
    ("n_clear", "n_models", "start"),
    [
        (0, 0, "no instruction-tuned model was run"),
        (0, 3, "no instruction-tuned model clears the base-model floor of 3.2% plus a margin of 5.0%"),
        (1, 1, "the one instruction-tuned model clears"),
        (1, 3, "one of the three instruction-tuned models clears"),
        (2, 3, "two of the three instruction-tuned models clear"),
        (3, 3, "all three instruction-tuned models clear"),
    ],
)
def test_floor_phrase(n_clear, n_models, start):
    assert ph.floor_phrase(n_clear, n_models, 0.032, 0.05).startswith(start)


def test_change_phrase():
    assert ph.change_phrase(0, 0, math.nan, "legacy", "full") == (
        "no paired trial changes outcome between legacy and full"
    )
    one = ph.change_phrase(0, 1, 1.0, "legacy", "full")
    assert one.startswith("one trial passes only under full and no trials only under legacy")
    assert one.endswith(": the test does not show a change (exact McNemar p = 1.00)")
    many = ph.change_phrase(2, 20, 0.0001, "legacy", "full")
    assert (
        "twenty" not in many and "20 trials pass only under full" in many and "a significant change" in many
    )
    assert many.endswith("(exact McNemar p < 0.001)")


def test_a_change_phrase_of_a_family_prints_the_adjusted_p_beside_the_raw_one_and_reads_its_verdict_from_it():
    family = ph.family_phrase(3, "model")
    assert family == "the three models tested" and ph.family_phrase(1, "model") == ""
    adjusted = ph.change_phrase(0, 7, 0.0156, "legacy", "full", 0.0703, family)
    assert adjusted.endswith(
        ": the test does not show a change (exact McNemar p = 0.0156, adjusted p = 0.0703 by Benjamini--Hochberg over "
        "the three models tested)"
    )
    # a family of one test has nothing to adjust: its p alone
    assert ph.change_phrase(0, 7, 0.0156, "legacy", "full", 0.0156, "").endswith(
        ": a significant change (exact McNemar p = 0.0156)"
    )


def test_plural_and_count_words():
    assert ph.plural(0, "model") == "no models" and ph.plural(1, "model") == "one model"
    assert ph.plural(12, "task") == "12 tasks"


def test_sweep_phrase_names_each_model_and_its_temperatures():
    assert ph.sweep_phrase({}) == "no model was run at more than one temperature"
    text = ph.sweep_phrase({"qwen2.5:7b": [0.0, 0.3, 0.7, 1.0], "mistral:7b": [0.3, 0.7]})
    assert text == "mistral:7b at 0.3 and 0.7; qwen2.5:7b at 0, 0.3, 0.7 and 1"


def test_sweep_diff_phrase_names_only_the_differences_whose_interval_leaves_zero():
    assert ph.sweep_diff_phrase([], 0.0, 0.95) == "no model was run at more than one temperature"
    nan = float("nan")
    assert ph.sweep_diff_phrase([("m", 0.3, 0.1, nan, nan)], 0.0, 0.95).startswith(
        "no difference from T = 0 could be given an interval"
    )
    within = [("a", 0.3, 2 / 93, 0.0, 5 / 93), ("a", 1.0, -1 / 93, -6 / 93, 4 / 93)]
    assert ph.sweep_diff_phrase(within, 0.0, 0.95) == (
        "no temperature moved a model's accuracy beyond the 95 % interval of its difference from T = 0 "
        "(tasks resampled; the differences range from -1.1 to +2.2 points)"
    )
    assert ph.sweep_diff_phrase([("a", 0.7, 0.0, 0.0, 0.0)], 0.0, 0.9).endswith(
        "the differences range 0.0 points)"
    )
    moved = [("b", 0.7, 0.1, 0.02, 0.2), *within]
    assert ph.sweep_diff_phrase(moved, 0.0, 0.95) == (
        "accuracy moved from T = 0 beyond the 95 % interval (tasks resampled) for b at T = 0.7: +10.0 points "
        "(+2.0 to +20.0); the other two differences stay within theirs"
    )
    assert ph.sweep_diff_phrase([("b", 1.0, -0.1, -0.2, -0.01)], 0.0, 0.95).endswith("(-20.0 to -1.0)")


def test_sweep_cpu_phrase_says_when_temperatures_ran_on_different_machines():
    assert ph.sweep_cpu_phrase({}) == "no model was run at more than one temperature"
    assert ph.sweep_cpu_phrase({0.0: ["X"]}) == "no model was run at more than one temperature"
    assert ph.sweep_cpu_phrase({0.0: ["X"], 0.7: ["X"]}) == "every temperature ran on X"
    two = ph.sweep_cpu_phrase({0.0: ["Intel"], 0.3: ["AMD"], 1.0: ["AMD"]})
    assert two == (
        "the runs at T = 0 ran on Intel and those at T = 0.3 and 1 on AMD, so a difference between temperatures "
        "is also one between machines"
    )
    three = ph.sweep_cpu_phrase({0.0: ["A", "B"], 0.3: [], 1.0: ["C"]})
    assert three.startswith(
        "the runs at T = 0 ran on A and B, those at T = 0.3 on an unrecorded CPU and those at T = 1 on C"
    )


def test_determinism_phrase():
    assert ph.determinism_phrase(0, 0, 0) == "no trial was repeated at temperature zero"
    assert ph.determinism_phrase(0, 372, 4) == (
        "all 372 pairs of repeats at temperature zero gave identical transcripts (four models)"
    )
    assert ph.determinism_phrase(3, 93, 1).startswith("3 of 93 pairs") and ph.determinism_phrase(
        3, 93, 1
    ).endswith("(one model)")


def test_quant_phrase_at_its_edges() -> None:
    from slmbench.analysis.phrases import quant_phrase

    assert quant_phrase(0, 0, 0, math.nan) == "no requantised variant was scored"
    assert (
        quant_phrase(1, 0, 0, math.nan) == "requantisation left test accuracy unchanged in the one comparison"
    )
    assert (
        quant_phrase(5, 0, 0, math.nan)
        == "requantisation left test accuracy unchanged in all five comparisons"
    )
    assert quant_phrase(1, 1, 0, 1.0) == (
        "requantisation lowered test accuracy in more comparisons than it raised it "
        "(sign test over the one comparison that moved: p = 1.00, not significant)"
    )
    assert quant_phrase(24, 3, 15, 0.0075).startswith(
        "requantisation raised test accuracy in more comparisons"
    )
    assert quant_phrase(24, 3, 15, 0.0075).endswith("18 comparisons that moved: p = 0.00750, significant)")
    assert quant_phrase(6, 2, 2, 1.0).startswith(
        "requantisation lowered and raised test accuracy equally often"
    )


def test_eligibility_change_phrase_at_its_edges() -> None:
    from slmbench.analysis.phrases import eligibility_change_phrase

    assert eligibility_change_phrase(0, 0) == "no configuration lost or gained eligibility when requantised"
    assert eligibility_change_phrase(1, 0) == (
        "a configuration lost eligibility when requantised in one comparison and gained it in none"
    )
    assert eligibility_change_phrase(0, 3) == (
        "a configuration gained eligibility when requantised in three comparisons and lost it in none"
    )
    assert eligibility_change_phrase(2, 1).endswith("in two comparisons and gained it in one comparison")


def test_cpu_phrase_counts_first_reply_pairs() -> None:
    assert ph.cpu_phrase(2418, 78, 2046, 466) == (
        "of the first-reply pairs, 78 of the 2,418 pairs run on one kind of CPU gave different first replies, and "
        "466 of the 2,046 pairs run on two kinds gave different first replies"
    )
    assert ph.cpu_phrase(0, 0, 0, 0) == "no two trials began with the same request"


def test_gain_phrase_counts_both_ways_and_prints_the_test():
    assert ph.gain_phrase("answer channel alone", 0, 12, 0.0002, "task pair") == (
        "answer channel alone gained 12 task pairs and lost none (exact McNemar p < 0.001)"
    )
    assert ph.gain_phrase("x alone", 2, 1, 1.0, "task pair") == (
        "x alone gained one task pair and lost two (exact McNemar p = 1.00)"
    )
    assert (
        ph.gain_phrase("x alone", 0, 0, math.nan, "task pair") == "x alone gained no task pairs and lost none"
    )
