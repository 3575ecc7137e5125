"""Topic ``reliability_taxonomy`` on small hand-built studies with known answers, each metric checked against an
independent computation (scipy's Wilson interval and exact binomial test, ``math.comb``, numpy's standard
deviation and a direct resampling)."""

from __future__ import annotations

import json
import math
from itertools import count
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binomtest
from statsmodels.stats.multitest import multipletests

from slmbench.analysis import phrases_taxonomy as ph
from slmbench.analysis.selection import count_mismatches, select_trials
from slmbench.analysis.topics import TOPICS, get_topic

PARAMS = {"bootstrap_seed": 7, "n_boot": 200, "alpha": 0.05}
_ids = count()


def trial(model: str = "m:1b", task: str = "C1", passed: bool = True, **kw: Any) -> dict[str, Any]:
    """One primary reliability trial of the study (consistency dimension unless said)."""
    row: dict[str, Any] = {
        "trial_id": f"t{next(_ids)}", "study": "slmbench", "primary": True, "suite": "reliability",
        "task_id": task, "group": "g", "dimension": "consistency", "variant": "original", "model": model,
        "params_b": 1.0, "is_base": False, "temperature": 0.0, "repeat": 0, "passed": passed,
        "outcome": "success" if passed else "failure", "refused": None, "harm": False, "criteria": None,
        "turns": 2, "prompt_tokens": 100, "completion_tokens": 10, "answer": "a", "transcript_sha256": "h",
    }  # fmt: skip
    row.update(kw)
    return row


def runs(task: str, outcomes: list[bool], **kw: Any) -> list[dict[str, Any]]:
    """The samples of one task's original prompt (at T = 0.7 unless said: a repeat at T = 0 on one build is not a
    sample, and counts once)."""
    kw = {"temperature": 0.7, **kw}
    return [trial(task=task, passed=ok, repeat=r, **kw) for r, ok in enumerate(outcomes)]


def compute(rows: list[dict[str, Any]], events: pd.DataFrame | None = None) -> dict[str, Any]:
    trials = pd.DataFrame(rows)
    res = get_topic("reliability_taxonomy")(trials, events, PARAMS)
    keys = [n.key for n in res.numbers]
    assert len(keys) == len(set(keys))
    assert count_mismatches([n.to_dict() for n in res.numbers], trials) == []
    return {n.key: n for n in res.numbers}


def wilson(k: int, n: int) -> tuple[float, float]:
    ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    return ci.low, ci.high


def value(numbers: dict[str, Any], key: str) -> Any:
    return numbers[key].value


def test_pass_hat_k_and_mixed_tasks_with_one_mixed_task() -> None:
    rows = runs("C1", [True] * 3) + runs("C2", [True, False, False]) + runs("C3", [False] * 3)
    n = compute(rows)
    assert value(n, "tax.k") == 3
    by_hand = np.mean([math.comb(c, 3) / math.comb(3, 3) for c in (3, 1, 0)])
    assert value(n, "tax.outcome.pass-hat-k.m-1b") == pytest.approx(by_hand) == pytest.approx(1 / 3)
    assert value(n, "tax.outcome.mixed.m-1b.k") == 1 and value(n, "tax.outcome.mixed.m-1b.n") == 3
    lo, hi = wilson(1, 3)
    assert (value(n, "tax.outcome.mixed.m-1b.lo"), value(n, "tax.outcome.mixed.m-1b.hi")) == pytest.approx(
        (lo, hi)
    )
    assert n["tax.outcome.mixed.m-1b"].provenance["unit"] == "tasks"
    assert value(n, "tax.outcome.pass-hat-k.m-1b.lo") == "n/a"  # three tasks: too few to resample
    assert "too few to resample" in value(n, "tax.phrase.pass-hat-k.m-1b")
    assert (
        value(n, "tax.phrase.outcome.m-1b") == "one of the three tasks run 3 or more times has mixed outcomes"
    )


def test_a_collapsed_interval_is_reported_as_no_interval() -> None:
    """Ten tasks that all fail every run: each resample of them gives pass^k 0 and CV 0, a zero-width
    interval that would print as [0.0 %, 0.0 %]; the topic reports no interval and says why."""
    rows = [r for i in range(10) for r in runs(f"C{i}", [False] * 3)]
    n = compute(rows)
    assert value(n, "tax.outcome.pass-hat-k.m-1b") == 0.0 and value(n, "tax.outcome.pass-hat-k.m-1b.n") == 10
    assert value(n, "tax.outcome.pass-hat-k.m-1b.lo") == value(n, "tax.outcome.pass-hat-k.m-1b.hi") == "n/a"
    assert value(n, "tax.resource.turns-cv.m-1b.lo") == "n/a"
    assert value(n, "tax.phrase.pass-hat-k.m-1b").endswith(
        "has no interval: every resample of the 10 tasks gives 0.0%"
    )


def test_pass_hat_k_uses_the_fewest_runs_and_a_task_with_more_runs() -> None:
    """k is the fewest runs of a repeated task; a task run four times enters pass^k with C(c, k) / C(n, k)."""
    rows = runs("C1", [True, True]) + runs("C2", [True, True, True, False])
    n = compute(rows)
    assert value(n, "tax.k") == 2
    by_hand = np.mean([1.0, math.comb(3, 2) / math.comb(4, 2)])
    assert value(n, "tax.outcome.pass-hat-k.m-1b") == pytest.approx(by_hand)


def test_identical_repeats_agree_on_everything() -> None:
    rows = runs("C1", [True] * 3) + runs("C2", [False] * 3)
    events = pd.DataFrame(
        [
            {
                "trial_id": r["trial_id"],
                "seq": 1,
                "type": "tool_call",
                "name": "search",
                "arguments": '{"q": "x"}',
            }
            for r in rows
        ]
    )
    n = compute(rows, events)
    assert value(n, "tax.outcome.mixed.m-1b") == 0.0
    assert (
        value(n, "tax.trajectory.same-calls.m-1b") == 1.0
        and value(n, "tax.trajectory.same-calls.m-1b.n") == 2
    )
    assert value(n, "tax.resource.turns-cv.m-1b") == 0.0 and value(n, "tax.resource.tokens-cv.m-1b") == 0.0
    assert value(n, "tax.phrase.outcome.m-1b") == "neither task run 3 or more times has mixed outcomes"


def test_a_run_with_different_arguments_or_order_breaks_trajectory_consistency() -> None:
    rows = runs("C1", [True] * 3) + runs("C2", [True] * 3) + runs("C3", [True] * 3)
    calls = []
    for r in rows:
        first, second = ("search", '{"q": "x"}'), ("read", '{"id": 1}')
        if r["task_id"] == "C2" and r["repeat"] == 2:
            first = ("search", '{"q": "y"}')  # same tool, different arguments
        if r["task_id"] == "C3" and r["repeat"] == 1:
            first, second = second, first  # same calls, other order
        calls += [
            {
                "trial_id": r["trial_id"],
                "seq": 5,
                "type": "tool_call",
                "name": first[0],
                "arguments": first[1],
            },
            {
                "trial_id": r["trial_id"],
                "seq": 9,
                "type": "tool_call",
                "name": second[0],
                "arguments": second[1],
            },
            {"trial_id": r["trial_id"], "seq": 7, "type": "refusal", "name": None, "arguments": "null"},
        ]
    events = pd.DataFrame(calls).sample(
        frac=1.0, random_state=3
    )  # the order of rows does not matter: seq does
    n = compute(rows, events)
    assert value(n, "tax.trajectory.same-calls.m-1b.k") == 1  # only C1
    assert value(n, "tax.trajectory.same-tools.m-1b.k") == 2  # C1 and C2 (C3 changed the order)
    assert value(n, "tax.outcome.mixed.m-1b.k") == 0  # the outcomes agree all the same
    no_events = compute(rows)
    assert value(no_events, "tax.trajectory.same-calls.m-1b.n") == 0
    assert (
        value(no_events, "tax.phrase.trajectory.m-1b")
        == "trajectories are not compared: no events table was given"
    )


def test_a_trial_without_calls_has_the_empty_trajectory() -> None:
    rows = runs("C1", [False] * 2)
    events = pd.DataFrame(columns=["trial_id", "seq", "type", "name", "arguments"])
    assert value(compute(rows, events), "tax.trajectory.same-calls.m-1b") == 1.0


def test_resource_spread_is_the_mean_coefficient_of_variation() -> None:
    rows = runs("C1", [True] * 3) + runs("C2", [True] * 2)
    for r, turns in zip(rows, (2, 4, 6, 3, 3), strict=True):
        r["turns"], r["prompt_tokens"], r["completion_tokens"] = turns, 10 * turns, 0
    n = compute(rows)
    cv = [np.std([2, 4, 6], ddof=1) / 4, 0.0]
    assert value(n, "tax.resource.turns-cv.m-1b") == pytest.approx(np.mean(cv))
    assert value(n, "tax.resource.tokens-cv.m-1b") == pytest.approx(np.mean(cv))  # tokens scale with turns
    assert value(n, "tax.resource.turns-cv.m-1b.n") == 2


def test_resource_spread_interval_resamples_tasks() -> None:
    """With ten tasks the interval is a percentile interval of means over resampled tasks (recomputed here)."""
    rows = []
    for t in range(10):
        for r in range(3):
            rows.append(trial(task=f"C{t}", repeat=r, turns=1 + (t % 3) * r, temperature=0.7))
    n = compute(rows)
    per_task = np.array(
        [
            np.std([1 + (t % 3) * r for r in range(3)], ddof=1) / np.mean([1 + (t % 3) * r for r in range(3)])
            for t in range(10)
        ]
    )
    rng = np.random.default_rng(PARAMS["bootstrap_seed"])
    means = [per_task[rng.integers(0, 10, size=10)].mean() for _ in range(PARAMS["n_boot"])]
    lo, hi = np.quantile(means, [0.025, 0.975])
    assert value(n, "tax.resource.turns-cv.m-1b") == pytest.approx(per_task.mean())
    assert (
        value(n, "tax.resource.turns-cv.m-1b.lo"),
        value(n, "tax.resource.turns-cv.m-1b.hi"),
    ) == pytest.approx((lo, hi))
    assert value(n, "tax.phrase.resource.turns.m-1b").startswith("resampling tasks, the interval")


def test_without_samples_consistency_is_not_measured_and_says_why() -> None:
    rows = [trial(task=f"C{t}", passed=t < 2) for t in range(4)]
    n = compute(rows)
    assert value(n, "tax.k") == 1
    assert not any(k.startswith(("tax.outcome.", "tax.trajectory.", "tax.resource.")) for k in n)
    assert not any(k.startswith(("tax.phrase.outcome.", "tax.phrase.pass-hat-k.")) for k in n)
    assert value(n, "tax.phrase.consistency") == ph.unsampled_phrase()
    assert value(n, "tax.repeats.units.m-1b") == 0
    assert (
        value(n, "tax.phrase.repeats.m-1b") == "no task was run more than once at temperature 0 on one build"
    )


def test_identical_repeats_at_temperature_zero_on_one_build_count_as_one_unit() -> None:
    """Three identical repeats of each task at T = 0 on one build are one unit each: no consistency, no pass^k
    over them, one outcome per task in every rate, and ``tax.repeats`` says they were identical."""
    rows = [
        r for t, ok in (("C1", True), ("C2", False)) for r in runs(t, [ok] * 3, temperature=0.0, build="b1")
    ]
    rows += [trial(task="S1", dimension="safety", passed=True, build="b1", criteria=_criteria(None, True),
                   repeat=r) for r in range(3)]  # fmt: skip
    n = compute(rows)
    assert value(n, "tax.k") == 1 and value(n, "tax.n.trials") == 9 and value(n, "tax.n.units") == 3
    assert "tax.outcome.pass-hat-k.m-1b" not in n and "tax.outcome.mixed.m-1b" not in n
    assert value(n, "tax.repeats.units.m-1b") == value(n, "tax.repeats.identical.m-1b") == 3
    assert value(n, "tax.repeats.trials.m-1b") == 9 and value(n, "tax.repeats.runs.m-1b") == 3
    assert value(n, "tax.phrase.repeats.m-1b") == (
        "all three tasks run more than once at temperature 0 on one build repeated themselves identically "
        "(outcome and transcript), so each counts once"
    )
    assert value(n, "tax.safety.compliance.m-1b.n") == 1  # the safety task once, not three times
    assert n["tax.safety.compliance.m-1b"].provenance["unit"] == "tasks"
    assert (
        len(select_trials(pd.DataFrame(rows), n["tax.safety.compliance.m-1b"].provenance["selection"])) == 3
    )


def test_repeats_that_differ_are_named_and_still_count_once() -> None:
    rows = runs("C1", [True] * 3, temperature=0.0, build="b1") + runs(
        "C2", [True] * 3, temperature=0.0, build="b1"
    )
    rows[4]["transcript_sha256"] = "other"  # C2's second repeat wrote another transcript
    n = compute(rows)
    assert value(n, "tax.repeats.units.m-1b") == 2 and value(n, "tax.repeats.identical.m-1b") == 1
    assert value(n, "tax.phrase.repeats.m-1b") == (
        "one of the two tasks run more than once at temperature 0 on one build repeated themselves identically; "
        "the transcripts of C2 (m:1b) differ (with the same outcome); each task counts once"
    )


def _null_control(model: str, task: str, outcomes: tuple[bool, bool, bool]) -> list[dict[str, Any]]:
    """The capability run of a task and two null-control reruns of the unchanged prompt."""
    common = {"model": model, "task": task, "dimension": None}
    return [trial(suite="capability", passed=outcomes[0], **common)] + [
        trial(suite="null_control", passed=ok, repeat=r + 1, **common) for r, ok in enumerate(outcomes[1:])
    ]


def _robustness(task: str, original: bool, perturbed: dict[str, bool]) -> list[dict[str, Any]]:
    rows = [trial(task=task, dimension="robustness", passed=original)]
    return rows + [
        trial(task=task, dimension="robustness", variant=v, passed=ok) for v, ok in perturbed.items()
    ]


def _wilson_share(successes: float, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """Wilson's score interval written out (Wilson 1927), for a fractional number of successes."""
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


def test_prompt_robustness_counts_each_task_once_against_the_floor_on_one_build() -> None:
    """Two tasks with two rephrasings each: each task's flip share (1/2, 1/2) counts once (n = 2 tasks, not four
    pairs). The floor pairs the two null-control reruns of a prompt (one shard: one build), not the capability run
    of another shard with a rerun."""
    rows = _robustness("R1", True, {"paraphrase": False, "typos": True}) + _robustness(
        "R2", False, {"paraphrase": False, "typos": True}
    )
    rows += _null_control("m:1b", "T1", (True, False, True)) + _null_control("m:1b", "T2", (True, True, True))
    n = compute(rows)
    assert value(n, "tax.prompt.flip-rate.m-1b") == pytest.approx(0.5)
    assert value(n, "tax.prompt.flip-rate.m-1b.n") == 2 and value(n, "tax.prompt.flip-rate.m-1b.n-pairs") == 4
    assert (
        value(n, "tax.prompt.flip-rate.m-1b.lo"),
        value(n, "tax.prompt.flip-rate.m-1b.hi"),
    ) == pytest.approx(_wilson_share(1.0, 2))
    assert (
        value(n, "tax.prompt.floor.m-1b.k") == 1 and value(n, "tax.prompt.floor.m-1b.n") == 2
    )  # T1's reruns
    rel = {x.key: x.value for x in get_topic("reliability")(pd.DataFrame(rows), None, PARAMS).numbers}
    for ours, theirs in (
        ("prompt.flip-rate", "rel.rob.flip-rate"),
        ("prompt.floor", "rel.null.same-build.flip-rate"),
    ):
        for suffix in ("", ".lo", ".hi", ".n"):
            assert value(n, f"tax.{ours}.m-1b{suffix}") == rel[f"{theirs}.m-1b{suffix}"]
    assert (
        rel["rel.null.across-runs.flip-rate.k"] == 1
    )  # T1: the capability run passes, the first rerun fails
    (a_lo, a_hi), (b_lo, b_hi) = wilson(1, 2), wilson(1, 2)
    lo = 0.0 - math.sqrt((0.5 - a_lo) ** 2 + (b_hi - 0.5) ** 2)
    hi = 0.0 + math.sqrt((a_hi - 0.5) ** 2 + (0.5 - b_lo) ** 2)
    assert [value(n, f"tax.prompt.excess.m-1b{x}") for x in ("", ".lo", ".hi")] == pytest.approx(
        [0.0, lo, hi]
    )
    assert "includes zero" in value(n, "tax.phrase.prompt.m-1b")
    floor = select_trials(pd.DataFrame(rows), n["tax.prompt.floor.m-1b"].provenance["selection"])
    assert len(floor) == 4 and set(floor["suite"]) == {"null_control"}  # the two reruns of each prompt


def test_on_one_build_identity_the_floor_pairs_the_capability_run_with_the_first_rerun() -> None:
    """With a build identity on every run (the portable build) the capability run and the reruns of a prompt are
    one unit: the floor's pair is the capability run (its first repeat) and the first rerun. Without one (a native
    label), they are two units, and the capability run is paired across runs."""
    rows = _robustness("R1", True, {"paraphrase": False})
    rows += _null_control("m:1b", "T1", (True, False, False))
    rows += [
        trial(suite="capability", model="m:1b", task="T1", dimension=None, passed=True, repeat=r)
        for r in (1, 2)
    ]
    portable = compute([{**r, "build": "b1"} for r in rows])
    assert value(portable, "tax.prompt.floor.m-1b.k") == 1 and value(portable, "tax.prompt.floor.m-1b.n") == 1
    native = compute([{**r, "build": "native/X"} for r in rows])
    assert value(native, "tax.prompt.floor.m-1b.k") == 0  # the two reruns of one shard agree
    rel = {x.key: x.value for x in get_topic("reliability")(pd.DataFrame(rows), None, PARAMS).numbers}
    assert rel["rel.null.flip-rate.m-1b.k"] == 1
    assert rel["rel.null.first-pair.divergence.n"] == 1  # the primary run and the first rerun
    assert rel["rel.null.divergence.n"] == 3  # every pair of the three runs
    assert rel["rel.null.across-runs.flip-rate.n"] == 1 and rel["rel.null.across-runs.identity"] == "no"


def test_a_missing_null_control_has_no_floor_and_says_so() -> None:
    n = compute(_robustness("R1", True, {"paraphrase": False}))
    assert value(n, "tax.prompt.floor.m-1b.n") == 0 and value(n, "tax.prompt.excess.m-1b") == "n/a"
    assert value(n, "tax.phrase.prompt.m-1b") == (
        "the rephrasings of a task flipped 100.0% of its outcomes on average over one task; no unchanged prompt was "
        "rerun on one build (null control), so there is no noise floor to compare with"
    )


def test_the_fault_kinds_of_a_row_are_one_family_adjusted_by_benjamini_hochberg() -> None:
    """Timeout: 5 pairs, all lost under the fault (p = 0.0625); error: 3 lost, 1 gained (p = 0.625); rate limit and
    schema drift: no discordant pair (no test). BH over the two tests: 0.125 and 0.625; the pooled test stands
    alone."""
    rows = []
    for kind, outcomes in (
        ("timeout", [(True, False)] * 5),
        ("error", [(True, False)] * 3 + [(False, True)]),
        ("rate_limit", [(True, True)]),
        ("schema_drift", [(False, False)]),
    ):
        for t, (orig, fault) in enumerate(outcomes):
            common = {"task": f"{kind}{t}", "dimension": "fault_tolerance"}
            rows += [trial(passed=orig, **common), trial(variant=f"fault_{kind}", passed=fault, **common)]
    n = compute(rows)
    raw = [value(n, f"tax.fault.{k}.m-1b.sign.p") for k in ("timeout", "error")]
    assert raw == pytest.approx([binomtest(0, 5, 0.5).pvalue, binomtest(1, 4, 0.5).pvalue])
    expected = multipletests(raw, method="fdr_bh")[1]
    assert [value(n, f"tax.fault.{k}.m-1b.sign.padj") for k in ("timeout", "error")] == pytest.approx(
        expected
    )
    assert value(n, "tax.fault.rate-limit.m-1b.sign.padj") == "n/a"
    assert "tax.fault.any.m-1b.sign.padj" not in n
    assert value(n, "tax.phrase.fault.timeout.m-1b").endswith(
        "(exact sign test over the tasks, p = 0.0625, adjusted p = 0.125 by Benjamini--Hochberg over the two fault "
        "kinds tested)"
    )
    assert value(n, "tax.phrase.fault.any.m-1b").endswith("(exact sign test over the tasks, p = 0.0391)")
    assert value(n, "tax.phrase.fault.kinds.m-1b") == (
        "under the timeout fault all five tasks passed less often than on the original prompt and none more "
        "often; under each of the rate limit and schema drift faults the one task did not change; under the error "
        "fault three of the four tasks passed less often than on the original prompt and one more often: "
        "no kind is a significant change (exact sign test over the tasks, Benjamini--Hochberg over the two fault "
        "kinds tested; smallest adjusted p = 0.125)"
    )


def test_fault_robustness_counts_each_task_once_with_an_exact_sign_test() -> None:
    """Samples (T = 0.7) of three tasks, two per side: a task's pass share under the fault against its original's
    is one unit. F0 (1 vs 0) and F2 (1 vs 1/2) pass less often under the fault, F1 (1/2 vs 1/2) ties."""
    rows = []
    for t, (orig, fault) in enumerate(
        [((True, True), (False, False)), ((True, False), (False, True)), ((True, True), (False, True))]
    ):
        for r in range(2):
            common = {"task": f"F{t}", "dimension": "fault_tolerance", "repeat": r, "temperature": 0.7}
            rows += [
                trial(passed=orig[r], **common),
                trial(variant="fault_timeout", passed=fault[r], **common),
            ]
    rows.append(
        trial(task="F9", dimension="fault_tolerance", variant="fault_error", passed=True)
    )  # no original
    n = compute(rows)
    key = "tax.fault.timeout.m-1b"
    assert value(n, f"{key}.n.only-original") == 2 and value(n, f"{key}.n.only-fault") == 0
    assert value(n, f"{key}.under-fault.n") == value(n, f"{key}.original.n") == 3  # tasks, not six pairs
    assert value(n, f"{key}.under-fault") == pytest.approx(1 / 3) and value(
        n, f"{key}.original"
    ) == pytest.approx(2.5 / 3)
    assert value(n, f"{key}.diff") == pytest.approx(1 / 3 - 2.5 / 3)
    assert value(n, f"{key}.sign.p") == pytest.approx(binomtest(0, 2, 0.5).pvalue)
    assert (value(n, f"{key}.original.lo"), value(n, f"{key}.original.hi")) == pytest.approx(
        _wilson_share(2.5, 3)
    )
    assert (value(n, f"{key}.under-fault.lo"), value(n, f"{key}.under-fault.hi")) == pytest.approx(
        wilson(1, 3)
    )
    assert value(n, "tax.fault.error.m-1b.under-fault.n") == 0  # unpaired: left out
    assert (
        value(n, "tax.phrase.fault.error.m-1b")
        == "no run under the error fault was paired with a run of its original prompt"
    )
    assert value(n, "tax.fault.any.m-1b.under-fault.n") == 3
    picked = select_trials(pd.DataFrame(rows), n[f"{key}.sign.p"].provenance["selection"])
    assert len(picked) == 12


def test_the_pooled_fault_test_counts_a_task_once_over_the_kinds_injected_into_it() -> None:
    """Four fault kinds injected into each of three tasks, each run three times at T = 0 on one build (identical):
    the pooled test is over three tasks (a task's pass share over its kinds against its original), not over
    twelve kind-pairs or thirty-six trial pairs. Each task passes its original and fails every fault: three tasks
    worse, none better, exact sign test p = 0.25 (not the p < 0.001 of 36 discordant pairs)."""
    rows = []
    for t in range(3):
        for variant in (
            "original",
            *(f"fault_{k}" for k in ("timeout", "rate_limit", "error", "schema_drift")),
        ):
            for r in range(3):
                rows.append(trial(task=f"F{t}", dimension="fault_tolerance", variant=variant, repeat=r, build="b1",
                                  passed=variant == "original", transcript_sha256=f"{t}{variant}"))  # fmt: skip
    n = compute(rows)
    key = "tax.fault.any.m-1b"
    assert value(n, f"{key}.original.n") == 3 and value(n, f"{key}.n.only-original") == 3
    assert value(n, f"{key}.sign.p") == pytest.approx(binomtest(0, 3, 0.5).pvalue) == pytest.approx(0.25)
    for kind in ("timeout", "rate-limit", "error", "schema-drift"):
        assert value(n, f"tax.fault.{kind}.m-1b.under-fault.n") == 3  # each task once per kind
        assert value(n, f"tax.fault.{kind}.m-1b.sign.p") == pytest.approx(0.25)
    assert n[f"{key}.sign.p"].provenance["unit"] == "tasks"
    assert len(select_trials(pd.DataFrame(rows), n[f"{key}.sign.p"].provenance["selection"])) == 45


def _criteria(harm_ok: bool | None, refusal_ok: bool | None) -> str:
    rules = [{"kind": "answered", "ok": True, "harm": False}]
    if harm_ok is not None:
        rules.append({"kind": "not_called", "ok": harm_ok, "harm": True})
    if refusal_ok is not None:
        rules.append({"kind": "refused", "ok": refusal_ok, "harm": False})
    return json.dumps(rules)


def test_safety_splits_harm_from_compliance() -> None:
    cases = [(False, False), (True, True), (True, False), (None, True), (True, None)]  # (harm ok, refusal ok)
    rows = [
        trial(
            task=f"S{i}", dimension="safety", passed=bool(h and r), harm=h is False, criteria=_criteria(h, r)
        )
        for i, (h, r) in enumerate(cases)
    ]
    rows.append(trial(task="S9", dimension="safety", outcome="infra_error", passed=False, criteria=None))
    n = compute(rows)
    assert value(n, "tax.safety.harm.m-1b.k") == 1 and value(n, "tax.safety.harm.m-1b.n") == 4
    assert value(n, "tax.safety.compliance.m-1b.k") == 2 and value(n, "tax.safety.compliance.m-1b.n") == 4
    lo, hi = wilson(1, 4)
    assert (value(n, "tax.safety.harm.m-1b.lo"), value(n, "tax.safety.harm.m-1b.hi")) == pytest.approx(
        (lo, hi)
    )
    assert value(n, "tax.phrase.safety.m-1b") == (
        "the forbidden act was carried out in one of the four tasks that had one; the refusal check held in two of "
        "the four tasks that had one"
    )
    assert n["tax.safety.harm.m-1b"].provenance["unit"] == "tasks"


def test_criteria_that_are_not_json_name_the_trial() -> None:
    bad = trial(task="S1", dimension="safety", criteria="[{oops")
    with pytest.raises(ValueError, match=f"trial {bad['trial_id']}: field criteria is not JSON"):
        compute([bad])


def test_pooled_row_leaves_base_models_out_and_comparison_shards_out() -> None:
    rows = runs("C1", [True, False, True], model="a:1b") + runs("C1", [True] * 3, model="b:1b")
    rows += runs("C1", [False, True, False], model="base:1b", is_base=True)
    rows += runs("C1", [False] * 3, model="a:1b", primary=False)  # another protocol: not the primary trials
    n = compute(rows)
    assert value(n, "tax.outcome.mixed.all.k") == 1 and value(n, "tax.outcome.mixed.all.n") == 2
    assert value(n, "tax.base.base-1b") == "yes" and "tax.base.a-1b" not in n
    assert value(n, "tax.outcome.mixed.a-1b.n") == 1


def test_predictability_and_environment_are_phrases_not_numbers() -> None:
    n = compute(runs("C1", [True]))
    assert "no confidence score" in value(n, "tax.phrase.predictability")
    assert not any(k.startswith(("tax.predictability", "tax.calibration", "tax.brier")) for k in n)


def test_the_topic_is_registered_and_its_table_renders_a_pooled_row() -> None:
    from slmbench.analysis.io import topic_document
    from slmbench.figures.tables import render_table

    assert "reliability_taxonomy" in TOPICS
    rows = runs("C1", [True] * 3, model="a:1b", temperature=0.0, build="b1") + runs(
        "C1", [False] * 3, model="base:1b", is_base=True, temperature=0.0, build="b1"
    )
    trials = pd.DataFrame(rows)
    doc = topic_document(
        "reliability_taxonomy", get_topic("reliability_taxonomy")(trials, None, PARAMS), {}, trials
    )
    tex = render_table("reliability_taxonomy", json.loads(json.dumps(doc, default=str)))
    assert "pooled (instruct) & 1 & 1 & 0 &" in tex and "base:1b\\textsuperscript{b} & 1 & 1 &" in tex


def test_audit_columns_reach_the_topic_through_run_topic(tmp_path) -> None:
    """``turns`` and ``criteria`` are audit columns: the topic gets them because its ``@topic(audit=...)`` names them."""
    from slmbench.analysis.io import run_topic

    rows = runs("C1", [True] * 2) + [
        trial(task="S1", dimension="safety", harm=True, criteria=_criteria(False, False))
    ]
    rows[0]["turns"] = 4
    pd.DataFrame(rows).to_parquet(tmp_path / "trials.parquet")
    doc = run_topic("reliability_taxonomy", tmp_path / "trials.parquet", None, PARAMS, None)
    got = {x["key"]: x["value"] for x in doc["numbers"]}
    assert got["tax.resource.turns-cv.m-1b"] == pytest.approx(np.std([4, 2], ddof=1) / 3)
    assert got["tax.safety.harm.m-1b.k"] == 1


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ((1, 0, 0), "no reliability task was run"),
        ((3, 0, 0), "no task was run 3 or more times"),
        ((3, 1, 0), "the one task run 3 or more times has the same outcome in every run"),
        ((3, 1, 1), "the one task run 3 or more times has mixed outcomes"),
        ((2, 4, 4), "all four tasks run 2 or more times have mixed outcomes"),
        ((2, 4, 2), "two of the four tasks run 2 or more times have mixed outcomes"),
    ],
)
def test_outcome_phrase_edges(args: tuple[int, int, int], expected: str) -> None:
    assert ph.outcome_phrase(*args) == expected


def test_other_phrase_edges() -> None:
    assert (
        ph.trajectory_phrase(True, 0, 0)
        == "no task was run more than once, so no trajectories can be compared"
    )
    assert ph.trajectory_phrase(True, 1, 0).startswith("the one task run more than once did not make")
    assert ph.trajectory_phrase(True, 3, 0).startswith("none of the three tasks run more than once made")
    assert (
        ph.interval_phrase("x", 9, 100, 0.25, 0.25, as_rate=True)
        == "x has no interval: every resample of the nine tasks gives 25.0%"
    )
    assert (
        ph.interval_phrase("x", 9, 100, 0.1, 0.2, as_rate=False)
        == "resampling tasks, the interval of x is 0.10 to 0.20"
    )
    assert ph.prompt_phrase(0.0, 0, 0, 0, math.nan, math.nan, 0.95).startswith("no rephrased run")
    assert "lies above zero" in ph.prompt_phrase(0.9, 10, 0, 10, 0.4, 0.95, 0.95)
    assert "lies below zero" in ph.prompt_phrase(0.0, 10, 9, 10, -0.95, -0.4, 0.95)
    assert "flipped the outcome of nine of the 10 task-model pairs rerun" in ph.prompt_phrase(
        0.0, 10, 9, 10, -0.95, -0.4, 0.95, "task-model pair"
    )
    assert (
        ph.fault_phrase("a fault", 3, 0, 0, math.nan)
        == "none of the three tasks passes more or less often under a fault than on the original prompt"
    )
    assert ph.fault_phrase("a fault", 2, 1, 0, 1.0) == (
        "of the two tasks, one passes less often under a fault than on the original prompt and none more often: "
        "the test does not show a change (exact sign test over the tasks, p = 1.00)"
    )
    assert ph.fault_kinds_phrase([("timeout", 0, 0, 0, math.nan)], "") == (
        "no faulted run was paired with a run of its original prompt"
    )
    assert (
        ph.safety_phrase(0, 0, 0, 0)
        == "no task had a forbidden act to carry out; no task had a refusal check"
    )
    assert ph.safety_phrase(0, 2, 0, 1) == (
        "the forbidden act was carried out in none of the two tasks that had one; the refusal check of the one "
        "task that had one failed"
    )
    assert ph.outcome_phrase(3, 2, 1) == "one of the two tasks run 3 or more times has mixed outcomes"
    assert ph.trajectory_phrase(True, 2, 2).startswith(
        "both tasks run more than once made the same tool calls"
    )
    assert ph.safety_phrase(2, 2, 1, 1) == (
        "the forbidden act was carried out in both tasks that had one; the refusal check held in the one task "
        "that had one"
    )


def test_a_model_whose_tasks_ran_fewer_than_k_times_has_no_consistency_and_says_why() -> None:
    rows = runs("C1", [True, False, True], model="a:1b") + runs("C1", [True], model="b:1b")
    n = compute(rows)
    assert value(n, "tax.k") == 3 and value(n, "tax.outcome.pass-hat-k.b-1b.n") == 0
    assert value(n, "tax.outcome.pass-hat-k.b-1b") == "n/a"
    assert value(n, "tax.phrase.outcome.b-1b") == "no task was run 3 or more times"
