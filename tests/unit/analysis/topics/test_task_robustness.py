"""Topic ``task_robustness`` on synthetic tidy frames with known answers: flip shares and accuracies over
paraphrase pairs clustered by task, the sign test on tasks, exact McNemar per fault kind with Benjamini-Hochberg
over the family, Wilson over tasks for harm and compliance, and no rate where no run on one build exists."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest
from scipy.stats import binomtest
from statsmodels.stats.proportion import proportion_confint

from slmbench.analysis.topics import get_topic
from slmbench.vocab import FAULT_KINDS, STUDY_ID

M = "tiny-1b"
S = "tiny-1b"
P = {"n_boot": 400, "bootstrap_seed": 7, "alpha": 0.05}


def _row(task: str, variant: str, passed: bool, *, suite: str = "capability", group: str = "coding",
         perturbation: str | None = None, repeat: int = 0, model: str = M, build_run: bool = True,
         protocol: str = "full", **extra: Any) -> dict[str, Any]:  # fmt: skip
    tid = f"{model}/{suite}/{task}/{variant}/{protocol}/{perturbation}/r{repeat}/{build_run}"
    return {
        "trial_id": tid, "study": STUDY_ID, "suite": suite, "task_id": task, "group": group, "variant": variant,
        "model": model, "params_b": 1.0, "is_base": False, "temperature": 0.0, "scaffold": "native",
        "parser_mode": "repaired", "protocol": protocol, "n_ctx": 4096, "max_turns": 5, "max_tokens": 256,
        "repeat": repeat, "outcome": "success" if passed else "failure", "passed": passed, "refused": None,
        "harm": False, "perturbation": perturbation, "build_run": build_run, "rerun": "portable", "primary": False,
        **extra,
    }  # fmt: skip


def _numbers(rows: list[dict[str, Any]]) -> dict[str, Any]:
    trials = pd.DataFrame(rows)
    res = get_topic("task_robustness")(trials, None, P)
    return {n.key: n.value for n in res.numbers}


ORIGINAL = [True, True, True, True, True, False, False, False, False, False]
"""Ten tasks: the first five pass as written."""
PARA = [
    (True, True, True),  # no flip
    (True, False, True),  # one down
    (False, False, False),  # three down
    (True, True, True),
    (True, True, True),
    (False, False, False),  # failing original, no flip
    (True, False, False),  # one up
    (True, True, True),  # three up
    (False, False, False),
    (False, False, False),
]


def _prompt_rows(extra_repeat: bool = False) -> list[dict[str, Any]]:
    rows = []
    for i, (orig, paras) in enumerate(zip(ORIGINAL, PARA, strict=True)):
        task = f"T-{i}"
        rows.append(_row(task, "original", orig))
        if extra_repeat:  # a repeat at T = 0 on one build is not another unit
            rows.append(_row(task, "original", not orig, repeat=1))
        rows.append(_row(task, "original", not orig, protocol="legacy"))  # another protocol: never paired
        rows += [
            _row(task, f"paraphrase-{j}", ok, perturbation="paraphrase") for j, ok in enumerate(paras, 1)
        ]
    return rows


def test_prompt_flip_shares_accuracies_and_sign_test() -> None:
    got = _numbers(_prompt_rows())
    key = f"trob.prompt.{S}"
    flips = 0 + 1 + 3 + 0 + 0 + 0 + 1 + 3 + 0 + 0
    assert got[f"{key}.flip.k"] == flips and got[f"{key}.flip.n"] == 30
    assert got[f"{key}.flip"] == pytest.approx(flips / 30)
    passes = sum(sum(p) for p in PARA)
    assert got[f"{key}.acc.paraphrase"] == pytest.approx(passes / 30)
    assert got[f"{key}.acc.original"] == pytest.approx(0.5) and got[f"{key}.acc.original.n"] == 10
    diffs = [sum(p) / 3 - o for o, p in zip(ORIGINAL, PARA, strict=True)]
    assert got[f"{key}.diff"] == pytest.approx(sum(diffs) / 10)
    assert (got[f"{key}.n.up"], got[f"{key}.n.down"], got[f"{key}.n.tasks"]) == (2, 2, 10)
    assert got[f"{key}.sign.p"] == pytest.approx(binomtest(2, 4, 0.5).pvalue)
    assert got[f"{key}.flip.lo"] <= got[f"{key}.flip"] <= got[f"{key}.flip.hi"]
    assert got["trob.prompt.n.models"] == 1 and got["trob.prompt.n.models-flipped"] == 1


def test_prompt_units_are_tasks_not_repeats() -> None:
    """A repeat of the original at T = 0 changes nothing: the first run of each task is its original."""
    assert _numbers(_prompt_rows(extra_repeat=True)) == _numbers(_prompt_rows())


def test_prompt_interval_resamples_tasks() -> None:
    """The interval is a task-cluster bootstrap: with fewer than eight tasks there is none (n/a), however many
    pairs those tasks hold."""
    rows = [r for r in _prompt_rows() if r["task_id"] in {f"T-{i}" for i in range(7)}]
    got = _numbers(rows)
    assert got[f"trob.prompt.{S}.flip.n"] == 21
    assert got[f"trob.prompt.{S}.flip.lo"] == "n/a" and got[f"trob.prompt.{S}.diff.hi"] == "n/a"
    assert got[f"trob.prompt.{S}.acc.original.lo"] != "n/a"  # one run per task: Wilson over tasks


def _fault_rows() -> list[dict[str, Any]]:
    """Twelve tasks, two models. Model a: every fault breaks the first 8 of its 9 passing tasks (8 down, 0 up);
    under timeout one failing task also recovers. Model b: no discordant task for any kind."""
    rows = []
    for model in ("a", "b"):
        for i in range(12):
            task, orig = f"T-{i}", i < 9
            rows.append(_row(task, "original", orig, model=model))
            for kind in FAULT_KINDS:
                broken = model == "a" and i < 8
                recovered = model == "a" and kind == "timeout" and i == 11
                ok = (orig and not broken) or recovered
                rows.append(_row(task, f"fault_{kind}", ok, model=model, perturbation="fault"))
    return rows


def test_fault_mcnemar_and_benjamini_hochberg() -> None:
    got = _numbers(_fault_rows())
    key = "trob.fault.timeout.a"
    assert (got[f"{key}.n.only-original"], got[f"{key}.n.only-fault"], got[f"{key}.flip.n"]) == (8, 1, 12)
    p_timeout = binomtest(1, 9, 0.5).pvalue  # exact McNemar: a binomial test on the discordant tasks
    p_other = binomtest(0, 8, 0.5).pvalue
    assert got[f"{key}.mcnemar.p"] == pytest.approx(p_timeout)
    assert got["trob.fault.error.a.mcnemar.p"] == pytest.approx(p_other)
    assert got["trob.fault.error.b.mcnemar.p"] == "n/a"  # no discordant task: no test
    assert got["trob.fault.n.tests"] == 4
    ps = sorted([p_timeout, p_other, p_other, p_other])  # Benjamini-Hochberg by hand over the four tests
    adjusted = [min(min(ps[j] * 4 / (j + 1) for j in range(i, 4)), 1.0) for i in range(4)]
    assert got["trob.fault.error.a.mcnemar.p-adj"] == pytest.approx(adjusted[0])
    assert got[f"{key}.mcnemar.p-adj"] == pytest.approx(adjusted[3])
    assert got["trob.fault.n.significant"] == sum(a < 0.05 for a in adjusted)
    assert got["trob.fault.error.a.acc.original"] == pytest.approx(9 / 12)
    assert got["trob.fault.error.a.acc.fault"] == pytest.approx(1 / 12)


def _safety_rows(model: str = M) -> list[dict[str, Any]]:
    """Thirteen harm tasks (the first three carried out, the last eight refused) and thirteen compliance tasks
    (ten passed, two refused), each once, and a repeat of HARM-0 that is not another unit."""
    rows = []
    for i in range(13):
        rows.append(_row(f"HARM-{i}", "original", i >= 3, suite="safety", group="harm", harm=i < 3,
                         refused=i >= 5, model=model))  # fmt: skip
        rows.append(_row(f"COMPLY-{i}", "original", i < 10, suite="safety", group="compliance",
                         refused=i in (10, 11), model=model))  # fmt: skip
    rows.append(_row("HARM-0", "original", True, suite="safety", group="harm", repeat=1, model=model))
    return rows


def trials() -> pd.DataFrame:
    """Paraphrased runs of one model, faulted runs of two, safety runs of all three (the figures' input)."""
    rows = _prompt_rows() + _fault_rows() + _safety_rows() + _safety_rows("a") + _safety_rows("b")
    return pd.DataFrame(rows)


def test_safety_harm_and_compliance_over_tasks() -> None:
    rows = _safety_rows()
    got = _numbers(rows)
    key = f"trob.safety.{S}"
    assert (got[f"{key}.harm.k"], got[f"{key}.harm.n"]) == (3, 13)
    lo, hi = proportion_confint(3, 13, alpha=0.05, method="wilson")
    assert (got[f"{key}.harm.lo"], got[f"{key}.harm.hi"]) == (pytest.approx(lo), pytest.approx(hi))
    assert got[f"{key}.harm.lo"] == pytest.approx(0.0818, abs=1e-4)  # Wilson 3/13, textbook value
    assert (got[f"{key}.compliance.k"], got[f"{key}.compliance.n"]) == (10, 13)
    assert (got[f"{key}.over-refusal.k"], got[f"{key}.harm-refused.k"]) == (2, 8)
    assert got["trob.safety.n.models-harm"] == 1 and got["trob.safety.n.models-over-refusal"] == 1


@pytest.mark.parametrize("change", ["no column", "not build run", "no perturbation"])
def test_nothing_without_runs_on_one_build(change: str) -> None:
    rows = _prompt_rows() + _fault_rows()
    trials = pd.DataFrame(rows)
    if change == "no column":
        trials = trials.drop(columns="build_run")
    elif change == "not build run":
        trials["build_run"] = False
    else:
        trials["perturbation"] = None
    res = get_topic("task_robustness")(trials, None, P)
    assert [(n.key, n.value) for n in res.numbers] == [("trob.n.models", 0)] and res.tables == {}
