"""The acknowledgement cue beside a task's keyword rule (memory write): a rule that reads only the assistant's reply
and answers save when it acknowledges ("Noted", "Updated", "I'll", ... : ``eligibility.baselines.ACK_CUES``).
Its test accuracy (Wilson) beside the keyword rule's on the same items, paired (exact McNemar); its accuracy over
every item of both splits; its coverage (the share of items on which a cue fires) and how often such an item is
labelled save; and each configuration against it by the Wilson rule (``elig.<task>.cue.…``,
``elig.<task>.<config>.vs-cue.eligible``, ``elig.<task>.n.beats-cue``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from slmbench.analysis import numbers as nb
from slmbench.analysis.numbers import Number
from slmbench.analysis.selection import Selected
from slmbench.analysis.stats_rates import is_eligible, wilson_interval
from slmbench.analysis.stats_tests import paired_outcomes
from slmbench.analysis.topics.eligibility.common import STUDY, TOPIC, finite, provenance, task_slug
from slmbench.analysis.topics.eligibility.runs import Run

MCNEMAR = paired_outcomes


def cue_tasks(baselines: pd.DataFrame) -> list[str]:
    """The tasks whose baselines' document carries the acknowledgement cue's answers."""
    if baselines.empty:
        return []
    return sorted({str(t) for t in baselines.loc[baselines["cue_prediction"].notna(), "task"]})


def cue_numbers(
    task: str, baselines: pd.DataFrame, name: str, phrases: Sequence[str], alpha: float
) -> list[Number]:
    """The cue's name and phrases (as the baselines' document records them), its accuracy (test, and all items),
    coverage and precision, and its paired test against the task's keyword rule on the test items."""
    t = task_slug(task)
    items = Selected.of(baselines, {"study": STUDY, "task": task})
    test = items.where({"split": "test"})
    nprov = provenance("baselines", items.selection, name)
    out: list[Number] = [
        nb.text(f"elig.{t}.cue.name", name, nprov),
        nb.text(f"elig.{t}.cue.phrases", ", ".join(f"``{p}''" for p in phrases), nprov),
    ]
    for key, part, what in (
        (f"elig.{t}.cue.acc", test, "test items"),
        (f"elig.{t}.cue.acc-all", items, "items"),
    ):
        r = wilson_interval(int(part.rows["cue_correct"].sum()), len(part), alpha)
        out += nb.rate_numbers(key, r, provenance(wilson_interval, part.selection, f"{name} on the {what}"))
    for key, part in ((f"elig.{t}.cue.coverage", items), (f"elig.{t}.cue.coverage-test", test)):
        r = wilson_interval(int(part.rows["cue_fired"].sum()), len(part), alpha)
        out += nb.rate_numbers(
            key, r, provenance(wilson_interval, part.selection, f"items on which {name} fires")
        )
    fired = items.where({"cue_fired": True})
    r = wilson_interval(int((fired.rows["label"] == fired.rows["cue_prediction"]).sum()), len(fired), alpha)
    out += nb.rate_numbers(
        f"elig.{t}.cue.precision",
        r,
        provenance(wilson_interval, fired.selection, f"items {name} labels save"),
    )
    pair = paired_outcomes(list(test.rows["cue_correct"]), list(test.rows["correct"]))
    pprov = provenance(MCNEMAR, test.selection, f"{name} against the keyword rule on the test items")
    out += [
        nb.count(f"elig.{t}.cue.vs-rule.n.only-cue", pair.only_first, pprov),
        nb.count(f"elig.{t}.cue.vs-rule.n.only-rule", pair.only_second, pprov),
        nb.pvalue(f"elig.{t}.cue.vs-rule.p", pair.p, pprov),
    ]
    return out


def vs_cue(run: Run, alpha: float, row: dict[str, Any]) -> list[Number]:
    """Whether the run's Wilson lower bound beats the cue's accuracy on the same test items (in ``row`` as
    ``cue_baseline`` and ``vs_cue_eligible``)."""
    test = run.test.rows
    n, k = len(test), int(test["right"].sum())
    cue = float(test["cue_correct"].astype(bool).sum()) / n if n else float("nan")
    ok = is_eligible(k, n, cue, 0.0, alpha) if n else False
    prov = provenance(
        is_eligible, run.test.selection, "Wilson lower bound beats the acknowledgement cue on the same items",
        alpha=alpha,
    )  # fmt: skip
    row.update(cue_baseline=finite(cue), vs_cue_eligible=ok)
    return [nb.rate(f"{run.key}.vs-cue.baseline", cue, prov), nb.flag(f"{run.key}.vs-cue.eligible", ok, prov)]


def cue_summary(tasks: Sequence[str], rows: Sequence[dict[str, Any]]) -> list[Number]:
    """Per cue task: how many configurations beat the cue by the Wilson rule, of how many."""
    out: list[Number] = []
    for task in tasks:
        part = [r for r in rows if r["task"] == task and "vs_cue_eligible" in r]
        prov = provenance(
            TOPIC, {"study": STUDY, "task": task}, "configurations against the acknowledgement cue"
        )
        t = task_slug(task)
        out += [
            nb.count(f"elig.{t}.n.beats-cue", sum(bool(r["vs_cue_eligible"]) for r in part), prov),
            nb.count(f"elig.{t}.n.vs-cue", len(part), prov),
        ]
    return out
