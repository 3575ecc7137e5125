"""Each task's data: its items per split and per group, and its baseline's accuracy on the whole test split
(``elig.<task>.n.…``, ``elig.<task>.baseline.…``) and, for tool selection, on each item source's test items
(``elig.tool-selection.source.<s>.baseline.acc``) and BM25's parameters (``elig.bm25.k1``, ``elig.bm25.b``)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pandas as pd

from slmbench.analysis import numbers as nb
from slmbench.analysis.numbers import Number
from slmbench.analysis.selection import Selected
from slmbench.analysis.stats_rates import wilson_interval
from slmbench.analysis.topics.eligibility.common import STUDY, finite, provenance, task_slug
from slmbench.eligibility.baselines import BM25_B, BM25_K1, bm25_tools
from slmbench.vocab import BINARY_TASKS, RANKING_TASKS

SOURCE_TASK = "tool_selection"
"""The task whose items come from two sources (``stratum``: ``own``, ``bfcl``), reported apart too."""


def group_of(task: str, label: str, stratum: str) -> str:
    """The item group counted in the data description: the label (binary), the source, hard or not."""
    if task in BINARY_TASKS:
        return nb.slug(label)
    return {"hard=True": "hard", "hard=False": "not-hard"}.get(stratum, nb.slug(stratum))


def task_numbers(
    task: str, baselines: pd.DataFrame, name: str, alpha: float
) -> tuple[list[Number], dict[str, Any]]:
    """Item counts per split and group, and the baseline's (``name``) test accuracy; the task's table row."""
    t = task_slug(task)
    items = Selected.of(baselines, {"study": STUDY, "task": task})
    test = items.where({"split": "test"})
    prov = provenance("len", items.selection, f"items of {task} per split")
    n_items, n_test = len(items), len(test)
    out = [
        nb.count(f"elig.{t}.n.items", n_items, prov),
        nb.count(f"elig.{t}.n.test", n_test, prov),
        nb.count(f"elig.{t}.n.calibration", n_items - n_test, prov),
        nb.text(f"elig.{t}.baseline.name", name, prov),
    ]
    r = wilson_interval(int(test.rows["correct"].sum()), n_test, alpha)
    bprov = provenance(wilson_interval, test.selection, f"{name} accuracy on {task}", alpha=alpha)
    out += nb.rate_numbers(f"elig.{t}.baseline.acc", r, bprov)
    groups = Counter(
        group_of(task, lab, s) for lab, s in zip(items.rows["label"], items.rows["stratum"], strict=True)
    )
    for group, n_group in sorted(groups.items()):
        out.append(nb.count(f"elig.{t}.n.{group}", n_group, prov))
    if task == SOURCE_TASK:
        for source in sorted({str(s) for s in test.rows["stratum"]}):
            part = test.where({"stratum": source})
            r_s = wilson_interval(int(part.rows["correct"].sum()), len(part), alpha)
            sprov = provenance(
                wilson_interval,
                part.selection,
                f"{name} on the {source} items",
                alpha=alpha,
            )
            out += nb.rate_numbers(f"elig.{t}.source.{nb.slug(source)}.baseline.acc", r_s, sprov)
    row = {
        "task": task,
        "baseline": name,
        "n_items": n_items,
        "n_test": n_test,
        "n_calibration": n_items - n_test,
    }
    row.update(acc=finite(r.rate), lo=finite(r.lo), hi=finite(r.hi), key=f"elig.{t}.baseline.acc")
    return out, row


def bm25_numbers(baselines: pd.DataFrame) -> list[Number]:
    """BM25's parameters, ``elig.bm25.k1`` and ``elig.bm25.b`` (for a study with a BM25 task)."""
    items = Selected.of(baselines, {"study": STUDY, "task": list(RANKING_TASKS)})
    prov = provenance(
        bm25_tools, items.selection, "BM25 parameters of the tool-selection and reranking baselines"
    )
    return [nb.stat("elig.bm25.k1", BM25_K1, prov), nb.stat("elig.bm25.b", BM25_B, prov)]
