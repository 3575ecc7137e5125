"""The top model, size correlations and pairwise tests (with TOST of equivalence) of the accuracy block."""

import math

import pandas as pd
import pytest
from scipy.stats import pearsonr, spearmanr

from slmbench.analysis.stats_equivalence import tost_paired_binary
from slmbench.analysis.topics import with_defaults
from slmbench.analysis.topics.common import accuracy_block, correlation_numbers, top_model


def test_a_top_model_leads_every_other_by_two_tasks() -> None:
    assert top_model({"a": (9, 10), "b": (7, 10), "c": (1, 10)}, set()) == ("a", pytest.approx(2.0))
    name, gap = top_model({"a": (9, 10), "b": (8, 10)}, set())
    assert name is None and gap == pytest.approx(1.0)  # a one-task lead is noise
    assert top_model({"a": (9, 10), "base": (10, 10), "b": (5, 10)}, {"base"})[0] == "a"
    name, gap = top_model({"a": (3, 10)}, set())
    assert name == "a" and math.isnan(gap)


def test_correlations_agree_with_scipy() -> None:
    sizes = pd.Series({"a": 0.1, "b": 0.5, "c": 1.5, "d": 7.0, "e": None})
    scores = {"a": 0.2, "b": 0.25, "c": 0.6, "d": 0.55, "e": 0.9, "f": 0.1}
    numbers = {n.key: n.value for n in correlation_numbers("x", sizes, scores, {}, "accuracy", 0.05)}
    xs, ys = [0.1, 0.5, 1.5, 7.0], [0.2, 0.25, 0.6, 0.55]  # models with a size and a score only
    assert numbers["x.pearson.r"] == pytest.approx(pearsonr(xs, ys)[0])
    assert numbers["x.spearman.rho"] == pytest.approx(spearmanr(xs, ys)[0])
    assert numbers["x.pearson.lo"] < numbers["x.pearson.r"] < numbers["x.pearson.hi"]


TEN = {"equivalence_margin": 0.1}


def _tasks(model: str, passes: list[int], repeats: int = 1, **kw: object) -> list[dict[str, object]]:
    return [
        {"trial_id": f"{model}/T{i}/{r}", "model": model, "task_id": f"T{i}", "variant": "original", "repeat": r,
         "passed": bool(ok), "outcome": "success" if ok else "failure", "params_b": 1.0, "is_base": False, **kw}
        for i, ok in enumerate(passes) for r in range(repeats)
    ]  # fmt: skip


def test_a_pair_of_models_that_no_test_separates_is_not_called_the_same_without_tost() -> None:
    """Two models, 60 tasks, one task apart: McNemar does not show a difference, TOST (10 points) shows them
    equivalent; on six of those tasks it does not."""
    a, b = [1] * 10 + [0] * 50, [1] * 11 + [0] * 49
    df = pd.DataFrame(_tasks("a", a) + _tasks("b", b))
    got = {n.key: n.value for n in accuracy_block("cap", df, {}, with_defaults(TEN))[0]}
    eq = tost_paired_binary(0, 1, 60, 0.1)
    assert got["cap.pair.a.b.equiv.p"] == pytest.approx(eq.p) and got["cap.pair.a.b.equiv.shown"] == "yes"
    assert got["cap.pairs.n-equiv"] == 1
    assert got["cap.phrase.pairs"] == (
        "the one pairwise test does not show a difference, and equivalence within \u00b110 percentage points (TOST)"
        " is shown"
    )
    few = pd.DataFrame(_tasks("a", a[:6]) + _tasks("b", b[:6]))
    assert {n.key: n.value for n in accuracy_block("cap", few, {}, with_defaults(TEN))[0]}[
        "cap.phrase.pairs"
    ] == (
        "the one pairwise test does not show a difference, and equivalence within \u00b110 percentage points (TOST)"
        " is not shown"
    )


def test_tost_is_left_out_where_repeats_of_a_task_disagree() -> None:
    rows = _tasks("a", [1, 0, 1, 0], repeats=2) + _tasks("b", [1, 0, 0, 0], repeats=2)
    rows[1]["passed"], rows[1]["outcome"] = False, "failure"  # a's T0: one pass, one failure
    got = {n.key: n.value for n in accuracy_block("cap", pd.DataFrame(rows), {}, with_defaults({}))[0]}
    assert "cap.pair.a.b.equiv.p" not in got and "cap.pairs.n-equiv" not in got
    assert got["cap.phrase.pairs"] == "the one pairwise test does not show a difference"
