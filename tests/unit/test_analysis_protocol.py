"""Topic ``protocol`` on a small synthetic protocol study with known answers.

Two models on six capability tasks at T=0: legacy once, full with three identical repeats, one leave-one-out
protocol, one larger token cap, and a T=0.7 sweep. The instruct model passes one task under legacy and four
under full, so full fixes three of its five legacy failures (exact McNemar p = 0.25).
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest

from slmbench.analysis.selection import select_trials
from slmbench.analysis.topics import get_topic
from slmbench.vocab import STUDY_ID

TASKS = [f"T{i}" for i in range(1, 7)]
MODELS = {"qa": (1.5, False), "qb": (0.27, True)}
PASSES: dict[tuple[str, str, int, float], set[str]] = {
    # (model, protocol, max_tokens, temperature) -> tasks passed
    ("qa", "legacy", 256, 0.0): {"T1"},
    ("qa", "full", 256, 0.0): {"T1", "T2", "T3", "T4"},
    ("qa", "full-no-answer", 256, 0.0): {"T1", "T2"},
    ("qa", "full", 512, 0.0): {"T1", "T2", "T3", "T4", "T5"},
    ("qa", "full", 256, 0.7): {"T1", "T2"},
}
REPEATS = {("full", 256, 0.0): 3, ("full", 256, 0.7): 3}


def _row(model: str, task: str, protocol: str, max_tokens: int, temperature: float, repeat: int) -> dict:
    params_b, base = MODELS[model]
    passed = task in PASSES.get((model, protocol, max_tokens, temperature), set())
    return dict(
        trial_id=f"{model}/{task}/{protocol}/{max_tokens}/{temperature}/r{repeat}", study=STUDY_ID,
        suite="capability", model=model, task_id=task, variant="original", temperature=temperature,
        repeat=repeat, protocol=protocol, max_turns=5, max_tokens=max_tokens, scaffold="native",
        parser_mode="repaired", n_ctx=4096, outcome="success" if passed else "failure", passed=passed,
        failure_class=None if passed else "capability", stop_reason="final_answer",
        transcript_sha256=f"{model}/{task}/{protocol}/{max_tokens}/{temperature}", closing_answer=False,
        is_base=base, params_b=params_b, primary=protocol == "legacy",
        group="safety" if task == "T6" else "coding", harm=task == "T6" and model == "qa" and protocol == "full",
    )  # fmt: skip


def trials() -> pd.DataFrame:
    """The synthetic protocol study (every combination in ``PASSES`` for both models)."""
    rows = [
        _row(m, t, proto, tok, temp, r)
        for m in MODELS
        for proto, tok, temp in {(p, k, tt) for _, p, k, tt in PASSES}
        for r in range(REPEATS.get((proto, tok, temp), 1))
        for t in TASKS
    ]
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def numbers() -> dict[str, Any]:
    res = get_topic("protocol")(trials(), None, {"bootstrap_seed": 1, "n_boot": 20})
    keys = [n.key for n in res.numbers]
    assert len(keys) == len(set(keys))
    return {n.key: n.value for n in res.numbers}


def test_full_against_legacy_counts_the_fixed_tasks_and_tests_them_exactly(numbers: dict[str, Any]) -> None:
    assert numbers["proto.cmp.full.qa.n.pairs"] == 6
    assert numbers["proto.cmp.full.qa.n.only-other"] == 3
    assert numbers["proto.cmp.full.qa.n.only-primary"] == 0
    assert numbers["proto.cmp.full.qa.mcnemar.p"] == pytest.approx(0.25)
    assert numbers["proto.cmp.full.qa.primary.acc"] == pytest.approx(1 / 6)
    assert numbers["proto.cmp.full.qa.other.acc"] == pytest.approx(4 / 6)
    assert numbers["proto.cmp.full.n.pairs"] == 12  # both models, repeat 0 only


def test_ablation_and_limit_are_paired_with_full(numbers: dict[str, Any]) -> None:
    assert numbers["proto.cmp.full-no-answer.qa.primary.acc"] == pytest.approx(4 / 6)
    assert numbers["proto.cmp.full-no-answer.qa.other.acc"] == pytest.approx(2 / 6)
    assert numbers["proto.cmp.max-tokens-512.qa.other.acc"] == pytest.approx(5 / 6)


def test_attribution_is_the_share_of_legacy_failures_fixed(numbers: dict[str, Any]) -> None:
    assert numbers["proto.attr.qa.protocol-share"] == pytest.approx(3 / 5)
    assert numbers["proto.attr.qa.remaining.n"] == 6  # 2 failed tasks x 3 repeats under full


def test_repeats_count_only_the_full_protocol_at_its_usual_limits(numbers: dict[str, Any]) -> None:
    """The larger-token-cap shard is a limit ablation, not a fourth repeat."""
    assert numbers["proto.rep.qa.t00.k"] == 3
    assert numbers["proto.rep.qa.t00.acc"] == pytest.approx(4 / 6)
    assert numbers["proto.rep.qa.t00.n.repeat-pairs"] == 18
    assert numbers["proto.rep.qa.t00.n.divergent"] == 0
    assert numbers["proto.rep.qa.t07.acc"] == pytest.approx(2 / 6)
    assert numbers["proto.power.qa.n"] == 18


def test_floor_and_order_are_computed_under_each_protocol(numbers: dict[str, Any]) -> None:
    """Under legacy the instruct model's 1 of 6 does not clear the base model's 0 plus the margin; under full
    its 4 of 6 does, and paired by task it passes 4 tasks the base model fails (exact McNemar p = 0.125)."""
    assert numbers["proto.floor.legacy.eligible.qa"] == "no"
    assert numbers["proto.floor.full.eligible.qa"] == "yes"
    assert numbers["proto.floor.full.eligible.qb"] == "no"  # a base model is never eligible
    assert numbers["proto.floor.full.baseline.acc"] == 0.0
    assert numbers["proto.floor.full.qa.vs-base.n.only-model"] == 4
    assert numbers["proto.floor.full.qa.vs-base.n.only-base"] == 0
    assert numbers["proto.floor.full.qa.vs-base.p"] == pytest.approx(0.125)
    assert numbers["proto.floor.legacy.qa.vs-base.p"] == pytest.approx(1.0)
    assert numbers["proto.floor.legacy.order"] == "qa (1/6), qb (0/6)"
    assert numbers["proto.floor.full.order"] == "qa (4/6), qb (0/6)"
    assert numbers["proto.phrase.sweep"] == "qa at 0 and 0.7; qb at 0 and 0.7"


def test_harmful_acts_are_counted_per_protocol(numbers: dict[str, Any]) -> None:
    """T6 is a safety task; the instruct model carries out its forbidden act only under full."""
    assert (numbers["proto.floor.full.qa.harm"], numbers["proto.floor.full.qa.harm.n"]) == (1, 1)
    assert (numbers["proto.floor.legacy.qa.harm"], numbers["proto.floor.legacy.qb.harm"]) == (0, 0)


def test_first_replies_to_one_request_are_compared_on_one_cpu_and_across_two() -> None:
    """Every model and task starts with one request in five runs at T=0 outside legacy (which reused the KV cache
    and is left out): three full repeats and the no-answer run on CPU "A", the token-cap run on "B". Over the 12
    model-task groups: 12 x C(4,2) = 72 same-CPU pairs and 12 x 4 = 48 cross-CPU pairs. qa's T1 no-answer run
    replies otherwise: 3 same-CPU pairs and 1 cross-CPU pair differ. The token cap pairs B with A, the no-answer
    ablation A with A."""
    df = trials()
    df["cpu"] = "A"
    df.loc[(df["max_tokens"] == 512) | (df["protocol"] == "legacy"), "cpu"] = "B"
    df["first_request_sha256"] = df["model"] + "/" + df["task_id"]
    df["first_reply_sha256"] = "same"
    odd = (df["model"] == "qa") & (df["task_id"] == "T1") & (df["protocol"] == "full-no-answer")
    df.loc[odd, "first_reply_sha256"] = "other"
    res = get_topic("protocol")(df, None, {"bootstrap_seed": 1, "n_boot": 20})
    got = {n.key: n.value for n in res.numbers}
    assert got["proto.det.same-cpu.n"] == 72 and got["proto.det.same-cpu.differ"] == 3
    assert got["proto.det.cross-cpu.n"] == 48 and got["proto.det.cross-cpu.differ"] == 1
    assert got["proto.det.n.cpus"] == 2
    assert "3 of the 72 pairs run on one kind of CPU gave different first replies" in got["proto.phrase.cpu"]
    assert (
        got["proto.cmp.max-tokens-512.n.cross-cpu"] == 12 and got["proto.cmp.full-no-answer.n.cross-cpu"] == 0
    )
    assert "max_tokens=512 vs full (12 of 12 pairs)" in got["proto.phrase.cross-cpu"]
    assert "full-no-answer vs full" not in got["proto.phrase.cross-cpu"]


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
    res = get_topic("protocol")(
        pd.concat([df, rerun], ignore_index=True), None, {"bootstrap_seed": 1, "n_boot": 20}
    )
    got = {n.key: n.value for n in res.numbers}
    assert got["proto.cmp.full.n.pairs"] == 12 and got["proto.cmp.full.n.cross-cpu"] == 0
    assert got["proto.cmp.full.qa.other.acc"] == pytest.approx(2 / 6)
    assert got["proto.cmp.max-tokens-512.n.cross-cpu"] == 0
    assert got["proto.cmp.max-tokens-512.qa.primary.acc"] == pytest.approx(2 / 6)
    assert got["proto.cmp.full-no-answer.n.cross-cpu"] == 0
    assert got["proto.cmp.full-no-answer.qa.primary.acc"] == pytest.approx(4 / 6)
    assert got["proto.attr.qa.protocol-share"] == pytest.approx(1 / 5)
    assert got["proto.attr.qa.remaining.n"] == 6
    assert got["proto.rep.qa.t00.k"] == 3 and got["proto.power.qa.n"] == 18
    assert got["proto.phrase.cross-cpu"] == "no comparison pairs trials run on different kinds of CPU"
    # the rerun against the original run: the machine alone (qa's T3 and T4 pass only on "A")
    assert got["proto.cmp.rerun-2.n.pairs"] == 12 and got["proto.cmp.rerun-2.n.cross-cpu"] == 12
    assert (got["proto.cmp.rerun-2.qa.n.only-primary"], got["proto.cmp.rerun-2.qa.n.only-other"]) == (2, 0)
    assert "rerun" not in got["proto.phrase.ablations"]


def test_a_side_with_two_trials_of_one_key_on_one_cpu_is_an_error() -> None:
    from slmbench.analysis.paired import paired

    df = trials().assign(cpu="A", rerun=None)
    full = df[(df["protocol"] == "full") & (df["max_tokens"] == 256) & (df["temperature"] == 0.0)]
    legacy = df[df["protocol"] == "legacy"]
    with pytest.raises(ValueError, match="two trials of one key"):
        paired(legacy, pd.concat([full[full["repeat"] == 0]] * 2))


def test_each_swept_temperature_is_compared_with_the_lowest_on_shared_tasks(numbers: dict[str, Any]) -> None:
    """Six tasks are too few to resample (the interval is not given), but the difference is."""
    assert numbers["proto.rep.qa.t07.diff"] == pytest.approx(2 / 6 - 4 / 6)
    assert numbers["proto.rep.qa.t07.diff.n-tasks"] == 6
    assert numbers["proto.rep.qb.t07.diff"] == 0
    assert numbers["proto.rep.qa.t07.diff.lo"] == "n/a"
    assert numbers["proto.phrase.sweep-diff"].startswith(
        "no difference from T = 0 could be given an interval"
    )
    assert numbers["proto.phrase.sweep-cpu"] == "every temperature ran on an unrecorded CPU"


def test_a_sweep_that_moves_accuracy_is_named_and_the_machines_of_each_temperature_are_said() -> None:
    """Ten tasks, three repeats each: at T=0 tasks 1-5 pass every time, at T=0.7 every task does; the T=0
    runs ran on one kind of CPU and the sweep on another."""
    tasks = [f"T{i}" for i in range(1, 11)]
    rows = []
    for temp, cpu in ((0.0, "Intel"), (0.7, "AMD")):
        for repeat in range(3):
            for i, task in enumerate(tasks):
                row = _row("qa", "T1", "full", 256, temp, repeat)
                passed = temp > 0 or i < 5
                row.update(
                    trial_id=f"qa/{task}/{temp}/r{repeat}", task_id=task, passed=passed, cpu=cpu,
                    outcome="success" if passed else "failure", failure_class=None if passed else "capability",
                )  # fmt: skip
                rows.append(row)
    table = pd.DataFrame(rows)
    res = get_topic("protocol")(table, None, {"bootstrap_seed": 1, "n_boot": 200})
    got = {n.key: n for n in res.numbers}
    assert got["proto.rep.qa.t07.diff"].value == pytest.approx(0.5)
    assert 0 < got["proto.rep.qa.t07.diff.lo"].value < 0.5 < got["proto.rep.qa.t07.diff.hi"].value <= 1
    assert got["proto.phrase.sweep-diff"].value.startswith(
        "accuracy moved from T = 0 beyond the 95 % interval (tasks resampled) for qa at T = 0.7: +50.0 points"
    )
    assert got["proto.phrase.sweep-cpu"].value == (
        "the runs at T = 0 ran on Intel and those at T = 0.7 on AMD, so a difference between temperatures is "
        "also one between machines"
    )
    selected = select_trials(table, got["proto.rep.qa.t07.diff"].provenance["selection"])
    assert len(selected) == 60


def test_a_model_swept_without_the_lowest_temperature_has_no_difference() -> None:
    """qb ran at 0.3 and 0.7 only (the study's lowest is 0): its differences are undefined, qa's are not."""
    from slmbench.analysis.numbers import TopicResult
    from slmbench.analysis.topics.protocol import sweep

    table = trials()
    extra = table[(table["model"] == "qb") & (table["temperature"] == 0.7)].assign(
        temperature=0.3, trial_id=lambda d: d["trial_id"] + "/t03"
    )
    table = pd.concat([table[~((table["model"] == "qb") & (table["temperature"] == 0.0))], extra])
    table = table.reset_index(drop=True)
    res = TopicResult()
    sweep(res, table, 0.05, 1, 50)
    got = {n.key: n.value for n in res.numbers}
    assert got["proto.rep.qb.t07.diff.n-tasks"] == 0 and got["proto.rep.qb.t07.diff"] == "n/a"
    assert got["proto.rep.qa.t07.diff"] == pytest.approx(2 / 6 - 4 / 6)
