"""Accuracy on two subsets of each task's test items beside all of them: the items the task's rubric does not
quote (``unquoted``: neither verbatim nor in part, ``eligibility.quoting``), and one item per family
(``family``: a base command and its rewrites count once, through the family's first test item by id), for every
configuration and for the baseline, each with its n; and the Wilson rule's verdict on each subset
(``elig.<task>.<config>.{unquoted,family}.…``, ``elig.<task>.baseline.{unquoted,family}.acc``,
``elig.<task>.n.quoted.…``, ``elig.n.eligible.{unquoted,family}``, ``elig.phrase.subsets-n``)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pandas as pd

from slmbench.analysis import numbers as nb
from slmbench.analysis.numbers import Number
from slmbench.analysis.selection import Selected
from slmbench.analysis.stats_rates import is_eligible, wilson_interval
from slmbench.analysis.topics.eligibility.common import STUDY, TOPIC, finite, provenance, task_slug
from slmbench.analysis.topics.eligibility.runs import Run
from slmbench.eligibility.quoting import QUOTED_LEVELS
from slmbench.vocab import ELIGIBILITY_TASKS

SUBSETS: dict[str, dict[str, Any]] = {"unquoted": {"quoted": "none"}, "family": {"family_rep": True}}
"""Each subset of the test items: its name and the condition that picks it."""
_WHAT = {"unquoted": "test items the rubric does not quote", "family": "one test item per family"}


def subset_numbers(run: Run, alpha: float, row: dict[str, Any]) -> list[Number]:
    """Per subset: the run's accuracy (Wilson), the baseline's on the same items and the Wilson rule's verdict
    (added to ``row`` as ``<subset>_acc``, ``<subset>_n``, ``<subset>_baseline``, ``<subset>_eligible``)."""
    out: list[Number] = []
    for name, condition in SUBSETS.items():
        items = run.test.where(condition)
        rows = items.rows
        n, k = len(rows), int(rows["right"].sum())
        base = int(rows["base_correct"].sum()) / n if n else math.nan
        acc = wilson_interval(k, n, alpha)
        ok = is_eligible(k, n, base, 0.0, alpha) if n else False
        what = f"{run.model}/{run.prompt}/{run.quant} on the {_WHAT[name]} of {run.task}"
        wprov = provenance(wilson_interval, items.selection, f"accuracy of {what}", alpha=alpha)
        eprov = provenance(
            is_eligible,
            items.selection,
            "Wilson lower bound beats the baseline on the same items",
            alpha=alpha,
        )
        key = f"{run.key}.{name}"
        out += nb.rate_numbers(f"{key}.acc", acc, wprov)
        out += [nb.rate(f"{key}.baseline", base, eprov), nb.flag(f"{key}.eligible", ok, eprov)]
        row.update({
            f"{name}_acc": finite(acc.rate), f"{name}_n": n, f"{name}_baseline": finite(base),
            f"{name}_eligible": ok,
        })  # fmt: skip
    return out


def task_subset_numbers(task: str, baselines: pd.DataFrame, name: str, alpha: float) -> list[Number]:
    """How the task's rubric quotes its items (all items, both splits), its families, and the baseline's
    (``name``) test accuracy on each subset."""
    t = task_slug(task)
    items = Selected.of(baselines, {"study": STUDY, "task": task})
    prov = provenance("len", items.selection, f"items of {task} by how the rubric quotes them; families")
    out = [
        nb.count(f"elig.{t}.n.quoted.{level}", int((items.rows["quoted"] == level).sum()), prov)
        for level in QUOTED_LEVELS
    ]
    out.append(nb.count(f"elig.{t}.n.families", int(items.rows["family"].nunique()), prov))
    test = items.where({"split": "test"})
    for subset, condition in SUBSETS.items():
        part = test.where(condition)
        r = wilson_interval(int(part.rows["correct"].sum()), len(part), alpha)
        bprov = provenance(
            wilson_interval, part.selection, f"{name} accuracy on the {_WHAT[subset]} of {task}", alpha=alpha
        )
        out += nb.rate_numbers(f"elig.{t}.baseline.{subset}.acc", r, bprov)
    return out


def _phrase(task: str, n_all: int, n_unquoted: int, n_family: int) -> str:
    return f"{task.replace('_', ' ')}: {n_all} test items, {n_unquoted} of them unquoted, {n_family} families"


def subset_summary(
    rows: Sequence[dict[str, Any]], baselines: pd.DataFrame, quoting: dict[str, Any] | None = None
) -> list[Number]:
    """Over the configuration-task pairs: how many are eligible on each subset, the phrase naming each task's n
    (test items, unquoted test items, families with a test item), and the fewest words of a quoted fragment
    (``quoting``: the baselines' document's record of the rule, when it has one)."""
    prov = provenance(TOPIC, {"study": STUDY}, "counts over configuration-task pairs, per subset")
    out = [
        nb.count(f"elig.n.eligible.{name}", sum(bool(r.get(f"{name}_eligible")) for r in rows), prov)
        for name in SUBSETS
    ]
    parts = []
    for task in ELIGIBILITY_TASKS:
        test = baselines[(baselines["task"] == task) & (baselines["split"] == "test")]
        if len(test):
            unquoted = int((test["quoted"] == "none").sum())
            parts.append(_phrase(task, len(test), unquoted, int(test["family_rep"].sum())))
    pprov = provenance(TOPIC, {"study": STUDY, "split": "test"}, "test items per subset and task")
    out.append(nb.text("elig.phrase.subsets-n", "; ".join(parts) or "no items", pprov))
    if quoting and "min_part_words" in quoting:
        qprov = provenance("baselines", {"study": STUDY}, "the quoting rule the baselines recorded")
        out.append(nb.count("elig.quoted.min-part-words", int(quoting["min_part_words"]), qprov))
    return out
