"""Topic ``protocol``: full against legacy, each ablation and limit against full, and reruns on another CPU."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest
from tests.fixtures import protocol_study
from tests.fixtures.protocol_study import trials

from slmbench.analysis.stats_equivalence import tost_paired_binary
from slmbench.analysis.topics import get_topic


def test_full_against_legacy_counts_the_fixed_tasks_and_tests_them_exactly(numbers: dict[str, Any]) -> None:
    assert numbers["proto.cmp.full.qa.n.pairs"] == 6
    assert numbers["proto.cmp.full.qa.n.only-other"] == 3
    assert numbers["proto.cmp.full.qa.n.only-primary"] == 0
    assert numbers["proto.cmp.full.qa.mcnemar.p"] == pytest.approx(0.25)
    assert numbers["proto.cmp.full.qa.primary.acc"] == pytest.approx(1 / 6)
    assert numbers["proto.cmp.full.qa.other.acc"] == pytest.approx(4 / 6)
    assert numbers["proto.cmp.full.n.pairs"] == 12  # both models, repeat 0 only


def test_the_per_model_tests_of_a_comparison_are_adjusted_over_its_models(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """qa: three tasks fixed by full (p = 0.25); qb made to pass T2 under full only (p = 1): BH over the two
    per-model tests gives 0.5 and 1; each phrase prints both and reads its verdict from the adjusted p."""
    monkeypatch.setitem(protocol_study.PASSES, ("qb", "full", 256, 0.0), {"T2"})
    got = protocol_study.study_numbers()
    assert (got["proto.cmp.full.qa.mcnemar.p"], got["proto.cmp.full.qb.mcnemar.p"]) == pytest.approx(
        (0.25, 1.0)
    )
    assert got["proto.cmp.full.qa.mcnemar.padj"] == pytest.approx(0.5)
    assert got["proto.cmp.full.qb.mcnemar.padj"] == pytest.approx(1.0)
    assert got["proto.cmp.full.qa.phrase"].endswith(
        "(exact McNemar p = 0.250, adjusted p = 0.500 by Benjamini--Hochberg over the two models tested)"
    )
    assert "proto.cmp.full.mcnemar.padj" not in got  # the pooled test is not of the family


def test_ablation_and_limit_are_paired_with_full(numbers: dict[str, Any]) -> None:
    assert numbers["proto.cmp.full-no-answer.qa.primary.acc"] == pytest.approx(4 / 6)
    assert numbers["proto.cmp.full-no-answer.qa.other.acc"] == pytest.approx(2 / 6)
    assert numbers["proto.cmp.max-tokens-512.qa.other.acc"] == pytest.approx(5 / 6)


def test_a_rerun_on_another_cpu_pairs_each_comparison_on_one_cpu() -> None:
    """Legacy and the token-cap run ran on CPU "B", full's three repeats and the no-answer run on "A"; a rerun of
    full (repeat 0) on "B" passes T1 and T2 for qa. Full vs legacy and the token cap then pair with the rerun
    (no cross-CPU pair; full passes 2 of qa's 6 tasks there), the no-answer ablation with the original run on
    "A"; repeats, the power analysis and the remaining failures never count the rerun, which is compared with
    the original run on its own."""
    df = trials()
    df["cpu"] = "A"
    df.loc[(df["max_tokens"] == 512) | (df["protocol"] == "legacy"), "cpu"] = "B"
    df["rerun"] = None
    rerun = df[(df["protocol"] == "full") & (df["max_tokens"] == 256) & (df["temperature"] == 0.0)]
    rerun = rerun[rerun["repeat"] == 0].assign(
        cpu="B", rerun="2", trial_id=lambda f: f["trial_id"] + "/rerun-2"
    )
    rerun["passed"] = (rerun["model"] == "qa") & rerun["task_id"].isin(["T1", "T2"])
    rerun["outcome"] = rerun["passed"].map({True: "success", False: "failure"})
    both = pd.concat([df, rerun], ignore_index=True)
    both["build"] = "native/" + both["cpu"]  # builds from before the portable one are named by their CPU
    res = get_topic("protocol")(both, None, {"bootstrap_seed": 1, "n_boot": 20, "equivalence_margin": 0.1})
    got = {n.key: n.value for n in res.numbers}
    assert got["proto.cmp.full.n.pairs"] == 12 and got["proto.cmp.full.n.cross-cpu"] == 0
    assert got["proto.cmp.full.qa.other.acc"] == pytest.approx(2 / 6)
    assert got["proto.cmp.max-tokens-512.n.cross-cpu"] == 0
    assert got["proto.cmp.max-tokens-512.qa.primary.acc"] == pytest.approx(2 / 6)
    assert got["proto.cmp.full-no-answer.n.cross-cpu"] == 0
    assert got["proto.cmp.full-no-answer.qa.primary.acc"] == pytest.approx(4 / 6)
    assert got["proto.attr.qa.protocol-share"] == pytest.approx(1 / 5)
    assert got["proto.attr.qa.remaining.n"] == 6
    assert got["proto.rep.qa.t00.k"] == 3 and got["proto.power.qa.n-trials"] == 18
    assert got["proto.phrase.cross-cpu"] == "no comparison pairs trials run on different kinds of CPU"
    # the rerun against the original run: the machine alone (qa's T3 and T4 pass only on "A")
    assert got["proto.cmp.rerun-2.n.pairs"] == 12 and got["proto.cmp.rerun-2.n.cross-cpu"] == 12
    assert (got["proto.cmp.rerun-2.qa.n.only-primary"], got["proto.cmp.rerun-2.qa.n.only-other"]) == (2, 0)
    assert "rerun" not in got["proto.phrase.ablations"]
    # whether the machine changes nothing is TOST's to say, never McNemar's: 12 pairs cannot show it within 10 points
    eq = tost_paired_binary(2, 0, 12, 0.1)
    assert (
        got["proto.cmp.rerun-2.equiv.p"] == pytest.approx(eq.p)
        and got["proto.cmp.rerun-2.equiv.shown"] == "no"
    )
    assert (got["proto.cmp.rerun-2.diff.lo"], got["proto.cmp.rerun-2.diff.hi"]) == pytest.approx(
        (eq.lo, eq.hi)
    )
    assert got["proto.cmp.rerun-2.equiv.phrase"].startswith(
        "over 12 task--model pairs the difference is -16.7 percentage points (90% interval"
    )
    assert got["proto.cmp.rerun-2.qb.equiv.phrase"].startswith(
        "over six tasks the difference is 0.0 percentage"
    )
    assert "not a significant" not in got["proto.cmp.rerun-2.qa.phrase"]


def test_a_side_with_two_trials_of_one_key_on_one_cpu_is_an_error() -> None:
    from slmbench.analysis.paired import paired

    df = trials().assign(cpu="A", rerun=None)
    full = df[(df["protocol"] == "full") & (df["max_tokens"] == 256) & (df["temperature"] == 0.0)]
    legacy = df[df["protocol"] == "legacy"]
    with pytest.raises(ValueError, match="two trials of one key"):
        paired(legacy, pd.concat([full[full["repeat"] == 0]] * 2))


def test_the_mechanism_runs_pair_each_added_condition_and_full_with_the_base_on_their_build() -> None:
    """On a portable build "P": the base (only a clean KV cache) passes T1 for qa, the answer channel added passes
    T1-T3, stuck detection added T1, and full (rerun "portable") T1-T4. Each mechanism protocol and full pair with
    the base on "P" (not with full's native run on "A"); the ablations' phrase leaves them out, and the mechanisms'
    phrase says in brief what each gained and lost."""
    df = trials().assign(cpu="A", build="native/A", rerun=None)
    df["conditions"] = df["protocol"].map({"legacy": "", "full": "canonical_history+clean_kv"})
    on = {"legacy-kv": "clean_kv", "legacy-kv-answer": "answer_channel+clean_kv", "legacy-kv-stuck": "stuck_detection+clean_kv",
          "full": "canonical_history+stuck_detection+answer_channel+closing_turn+clean_kv"}  # fmt: skip
    passes = {"legacy-kv": {"T1"}, "legacy-kv-answer": {"T1", "T2", "T3"}, "legacy-kv-stuck": {"T1"},
              "full": {"T1", "T2", "T3", "T4"}}  # fmt: skip
    portable = []
    for protocol, tasks in passes.items():
        rows = df[(df["protocol"] == "legacy") & (df["max_tokens"] == 256)].copy()
        rows["passed"] = (rows["model"] == "qa") & rows["task_id"].isin(tasks)
        rows = rows.assign(
            protocol=protocol, conditions=on[protocol], build="P", cpu="A", rerun="portable", primary=False,
            outcome=rows["passed"].map({True: "success", False: "failure"}),
            trial_id=rows["trial_id"] + f"/{protocol}/portable",
        )  # fmt: skip
        portable.append(rows)
    both = pd.concat([df, *portable], ignore_index=True)
    got = {
        n.key: n.value for n in get_topic("protocol")(both, None, {"bootstrap_seed": 1, "n_boot": 20}).numbers
    }
    assert (
        got["proto.cmp.legacy-kv-answer.qa.n.only-other"],
        got["proto.cmp.legacy-kv-answer.n.cross-cpu"],
    ) == (2, 0)
    assert got["proto.cmp.legacy-kv-stuck.qa.n.only-other"] == 0
    assert (
        got["proto.cmp.full-legacy-kv.qa.n.only-other"] == 3
        and got["proto.cmp.full-legacy-kv.n.cross-cpu"] == 0
    )
    assert "legacy-kv" not in got["proto.phrase.ablations"]
    mechanisms = got["proto.phrase.mechanisms"].split("; ")
    assert [m.split(" gained ")[0] for m in mechanisms] == [
        "answer channel alone", "stuck detection alone", "the full protocol"
    ]  # fmt: skip
    assert mechanisms[0].startswith(
        "answer channel alone gained two task pairs and lost none (exact McNemar p"
    )
    assert got["proto.phrase.mechanisms-alone"] == "; ".join(mechanisms[:2])
