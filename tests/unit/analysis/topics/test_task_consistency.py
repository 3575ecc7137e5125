"""Topic ``task_consistency`` on small hand-built runs on one build with known answers: pass^j and pass@j against
a count over every subset of a task's samples, the mixed share against the Wilson formula, the calibration
measures against ``stats_calibration`` and by hand, the intervals against a bootstrap over tasks, and nothing at
all without samples above T = 0."""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import pandas as pd
import pytest

from slmbench.analysis.stats_bootstrap import cluster_bootstrap
from slmbench.analysis.stats_calibration import auroc, brier, ece
from slmbench.analysis.topics import get_topic

PARAMS: dict[str, Any] = {"bootstrap_seed": 11, "n_boot": 400, "alpha": 0.05}
K = 5
PASSES = [5, 5, 4, 3, 0, 0, 2, 5, 1, 0]
"""Passing samples of each of ten tasks of model ``qa`` (mixed: the four tasks with 1 to 4)."""


def _trial(model: str, task: str, part: str, t: float, repeat: int, passed: bool, conf: float | None) -> dict:
    return {
        "trial_id": f"{model}/{task}/{part}/T{t}/r{repeat}", "study": "slmbench", "suite": "capability",
        "task_id": task, "model": model, "params_b": 0.5, "is_base": False, "temperature": t, "repeat": repeat,
        "variant": "original", "outcome": "success" if passed else "failure", "passed": passed,
        "confidence": conf, "build_part": part, "build_run": True, "rerun": "portable", "primary": False,
    }  # fmt: skip


def study(samples: bool = True) -> pd.DataFrame:
    rows = []
    for i, c in enumerate(PASSES):
        task = f"T-{i:02d}"
        if samples:
            rows += [
                _trial("qa", task, "sampling", 0.7, r, r < c, 0.3 + 0.1 * (r < c) + 0.01 * i)
                for r in range(K)
            ]
        rows.append(_trial("qa", task, "primary", 0.0, 0, c >= 3, 0.9 if c >= 3 else 0.4 + 0.02 * i))
        rows.append(_trial("qb", task, "primary", 0.0, 0, False, 0.5 + 0.03 * i))  # qb never passes
    if samples:  # a task still being recorded: three samples, left out
        rows += [_trial("qa", "T-99", "sampling", 0.7, r, True, 0.8) for r in range(3)]
    rows.append(_trial("qa", "T-00", "primary", 0.0, 1, False, 0.1))  # a repeat at T = 0 is no sample
    rows.append(
        {**_trial("qa", "T-00", "sampling", 0.7, 9, False, 0.5), "outcome": "infra_error", "task_id": "T-98"}
    )
    rows.append(
        {
            **_trial("qa", "T-00", "primary", 0.0, 0, True, 0.5),
            "trial_id": "other",
            "build_part": None,
            "build_run": False,
        }
    )
    frame = pd.DataFrame(rows)
    for column in ("study", "suite", "task_id", "model", "build_part", "outcome"):
        frame[column] = frame[column].astype("category")
    return frame


def numbers(frame: pd.DataFrame) -> dict[str, Any]:
    res = get_topic("task_consistency")(frame, None, PARAMS)
    return {n.key: n.value for n in res.numbers} | {f"text:{n.key}": n.text for n in res.numbers}


def subset_share(c: int, j: int, every: bool) -> float:
    """The share of the j-subsets of a task's K samples (c passing) in which all pass / at least one passes."""
    samples = [True] * c + [False] * (K - c)
    subsets = list(itertools.combinations(samples, j))
    return sum(all(s) if every else any(s) for s in subsets) / len(subsets)


@pytest.fixture(scope="module")
def got() -> dict[str, Any]:
    return numbers(study())


@pytest.mark.parametrize("j", range(1, K + 1))
def test_pass_hat_and_pass_at_j_are_the_means_over_tasks_of_the_subset_shares(
    got: dict[str, Any], j: int
) -> None:
    assert got[f"tcons.pass-hat.{j}.qa"] == pytest.approx(np.mean([subset_share(c, j, True) for c in PASSES]))
    assert got[f"tcons.pass-at.{j}.qa"] == pytest.approx(np.mean([subset_share(c, j, False) for c in PASSES]))


def test_counts_k_and_the_tasks_left_out(got: dict[str, Any]) -> None:
    assert got["tcons.k"] == K and got["tcons.n.models"] == 1  # qb has no samples
    assert got["tcons.n.tasks.qa"] == 10 and got["tcons.n.short.qa"] == 1  # T-99 has 3 of 5 samples
    assert got["tcons.n.samples.qa"] == 50  # the T = 0 repeat and the infrastructure error are not samples
    assert (got["tcons.n.all-pass.qa"], got["tcons.n.none-pass.qa"]) == (3, 3)
    assert got["tcons.temperature.samples"] == 0.7 and got["tcons.temperature.primary"] == 0.0


def test_the_mixed_share_has_the_wilson_interval_over_tasks(got: dict[str, Any]) -> None:
    k, n, z = 4, 10, 1.959963984540054
    p = k / n
    centre, half = (p + z * z / (2 * n)), z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    assert (got["tcons.mixed.qa.k"], got["tcons.mixed.qa.n"], got["tcons.mixed.qa"]) == (4, 10, 0.4)
    assert got["tcons.mixed.qa.lo"] == pytest.approx((centre - half) / (1 + z * z / n))
    assert got["tcons.mixed.qa.hi"] == pytest.approx((centre + half) / (1 + z * z / n))


def test_the_intervals_resample_tasks_not_samples(got: dict[str, Any]) -> None:
    per_task = pd.DataFrame({"task": range(10), "v": [subset_share(c, K, True) for c in PASSES]})
    b = cluster_bootstrap(
        per_task, lambda d: float(np.mean(d["v"])), cluster="task", n_resamples=400, seed=11, alpha=0.05
    )
    assert (got[f"tcons.pass-hat.{K}.qa.lo"], got[f"tcons.pass-hat.{K}.qa.hi"]) == pytest.approx((b.lo, b.hi))


def test_calibration_of_each_trial_set(got: dict[str, Any]) -> None:
    frame = study()
    for name, part in (("samples", "sampling"), ("primary", "primary")):
        rows = frame[
            (frame["model"] == "qa") & (frame["build_part"] == part) & (frame["outcome"] != "infra_error")
        ]
        rows = rows[rows["temperature"] == (0.7 if part == "sampling" else 0.0)]
        c, y = rows["confidence"].to_numpy(float), rows["passed"].to_numpy(bool)
        key = f"tcons.cal.{name}.qa"
        assert got[f"{key}.brier"] == pytest.approx(brier(c, y))
        assert got[f"{key}.auroc"] == pytest.approx(auroc(c, y))
        assert got[f"{key}.ece"] == pytest.approx(ece(c, y))
        assert got[f"{key}.n"] == len(rows)
    # the primary trials: passed at 0.9 and failed below 0.6, so every passed trial ranks above every failed one
    assert got["tcons.cal.primary.qa.auroc"] == 1.0
    assert (
        got["tcons.cal.primary.qa.n"] == 11 and got["tcons.cal.primary.qa.n-tasks"] == 10
    )  # with the T=0 repeat
    assert got["tcons.cal.samples.qa.n-tasks"] == 11  # the unfinished task's samples have a confidence too


def test_without_a_passed_trial_the_auroc_is_undefined_and_says_so(got: dict[str, Any]) -> None:
    assert got["tcons.cal.primary.qb.auroc"] == "n/a" and got["tcons.cal.primary.qb.auroc.lo"] == "n/a"
    assert got["text:tcons.cal.primary.qb.auroc.text"].startswith("undefined: none of the 10 trials passed")
    assert got["tcons.cal.primary.qb.brier"] == pytest.approx(
        np.mean([(0.5 + 0.03 * i) ** 2 for i in range(10)])
    )
    assert "tcons.cal.samples.qb.n" not in got  # qb has no samples


def test_the_reliability_bins_weigh_to_the_ece(got: dict[str, Any]) -> None:
    key = "tcons.cal.primary.qa"
    bins = sorted({k.split(".")[4] for k in got if k.startswith(f"{key}.bin")})
    total = sum(got[f"{key}.{b}.n"] for b in bins)
    gaps = sum(
        got[f"{key}.{b}.n"] * abs(got[f"{key}.{b}.confidence"] - got[f"{key}.{b}.passed"]) for b in bins
    )
    assert total == 11 and gaps / total == pytest.approx(got[f"{key}.ece"])


def test_the_phrases_follow_the_numbers(got: dict[str, Any]) -> None:
    assert got["tcons.phrase.outcome.qa"].startswith("four of the 10 tasks were passed in some samples")
    assert got["tcons.phrase.decline.qa"] == (  # 3 tasks pass all 5 of 10; 25 of 50 samples pass
        "the chance that all five samples of a task pass is 30.0%, against 50.0% for one sample (20.0 points lower)"
    )


def test_without_samples_above_zero_the_topic_has_nothing() -> None:
    res = get_topic("task_consistency")(study(samples=False), None, PARAMS)
    assert res.numbers == [] and res.tables == {}
    assert get_topic("task_consistency")(study().drop(columns="build_part"), None, PARAMS).numbers == []


@pytest.mark.parametrize(
    ("counts", "phrase"),
    [
        ((1, 0, 0), "the one task was passed in some of its five samples and failed in others"),
        ((1, 1, 0), "the one task was passed in all five samples"),
        ((10, 5, 5), "every one of the 10 tasks had one outcome in all five samples (five passed in every sample, "
         "five failed in every sample)"),
        ((10, 0, 0), "all 10 tasks were passed in some samples and failed in others; none passed in all five samples "
         "and none failed in all five samples"),
        ((0, 0, 0), "no task has all five of its samples"),
    ],
)  # fmt: skip
def test_the_outcome_phrase_at_its_edges(counts: tuple[int, int, int], phrase: str) -> None:
    from slmbench.analysis.topics.task_consistency.phrases import outcome_phrase

    assert outcome_phrase(K, *counts) == phrase


def test_an_auroc_interval_says_how_many_resamples_held_both_outcomes(got: dict[str, Any]) -> None:
    kept = got["tcons.cal.samples.qa.auroc.resamples"]
    assert 0 < kept <= PARAMS["n_boot"]
    text = got["tcons.cal.samples.qa.auroc.text"]
    assert text == "1.00 (no interval: every resample of tasks gives this value)"  # passed samples rank first
    assert (f"over the {kept} of" in text) == ("[" in text and kept < PARAMS["n_boot"])


def test_with_one_passed_trial_the_auroc_is_its_rank_and_has_no_interval() -> None:
    frame = study()
    one = (frame["model"] == "qb") & (frame["task_id"] == "T-03")  # qb's one passed primary trial, at 0.59
    frame.loc[one, ["passed", "outcome"]] = [True, "success"]
    got = numbers(frame)
    assert got["tcons.cal.primary.qb.auroc"] == pytest.approx(3 / 9)  # above three of the nine failed ones
    assert got["tcons.cal.primary.qb.auroc.lo"] == "n/a" and got["tcons.cal.primary.qb.auroc.hi"] == "n/a"
    assert got["tcons.cal.primary.qb.auroc.text"] == (
        "0.33 (no interval: one trial passed, so the AUROC is its rank among the nine failed ones)"
    )
    assert got["tcons.cal.primary.qb.discrimination"].startswith("whether confidence separates")
