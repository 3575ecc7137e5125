"""Fault robustness on every capability task: per model and fault kind, each task's original run against its
run with the fault injected once into the first tool its reference solution calls (one pair per task: the unit
is the task). Exact McNemar per model and kind, Benjamini-Hochberg across every model and kind of the family."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import pandas as pd

from slmbench.analysis import numbers as nb
from slmbench.analysis.numbers import Number
from slmbench.analysis.selection import selection_for
from slmbench.analysis.stats_rates import wilson_interval
from slmbench.analysis.stats_tests import Paired, bh_adjust, mcnemar_p
from slmbench.analysis.topics.common import json_float
from slmbench.analysis.topics.flips import cells
from slmbench.vocab import FAULT_KINDS

WILSON = wilson_interval


@dataclass(frozen=True)
class FaultTest:
    """One model under one fault kind: its key, the pairs' trial ids and the paired table (first: the original
    run, second: the faulted run; units: tasks)."""

    key: str
    model: str
    kind: str
    trial_ids: tuple[str, ...]
    table: Paired

    @property
    def n(self) -> int:
        """Tasks paired."""
        return self.table.n

    @property
    def p(self) -> float:
        """Exact McNemar p (nan without a discordant task)."""
        return self.table.p

    @property
    def both(self) -> int:
        return self.table.both

    @property
    def only_original(self) -> int:
        return self.table.only_first

    @property
    def only_fault(self) -> int:
        return self.table.only_second


def fault_tests(pairs: pd.DataFrame, model: str) -> list[FaultTest]:
    """One test per fault kind that ``model``'s faulted runs hold (``faults.perturbed_pairs`` of the fault)."""
    out = []
    for kind in FAULT_KINDS:
        part = pairs[pairs["variant"].astype(str) == f"fault_{kind}"]
        if part.empty:
            continue
        key = f"trob.fault.{nb.slug(kind)}.{nb.slug(model)}"
        ids = (*part["trial_id"].astype(str), *part["trial_id_base"].astype(str))
        out.append(FaultTest(key, model, kind, ids, Paired(*cells(part))))
    return out


def fault_numbers(
    tests: list[FaultTest], trials: pd.DataFrame, base: dict[str, Any], alpha: float
) -> tuple[list[Number], list[dict[str, Any]]]:
    """Per test ``<key>.flip`` (tasks whose outcome under the fault differs from the original's, Wilson;
    ``.k``, ``.n`` tasks), ``.acc.original``, ``.acc.fault``, ``.n.only-original``, ``.n.only-fault``,
    ``.mcnemar.p``, ``.mcnemar.p-adj`` (Benjamini-Hochberg over every test of ``tests`` that has a discordant
    task) and ``.significant``; ``trob.fault.n.tests`` and ``trob.fault.n.significant``; the rows of the topic's
    ``faults`` table."""
    ps = [t.p for t in tests]
    p_adj, reject = bh_adjust(ps, alpha)
    out: list[Number] = []
    rows: list[dict[str, Any]] = []
    every = selection_for(trials, {i for t in tests for i in t.trial_ids}, base)
    fprov = nb.provenance(bh_adjust, every, "tests of every model and fault kind (Benjamini-Hochberg family)",
                          unit="tasks", alpha=alpha)  # fmt: skip
    out += [
        nb.count("trob.fault.n.tests", sum(math.isfinite(p) for p in ps), fprov),
        nb.count("trob.fault.n.significant", sum(reject), fprov),
    ]
    for t, p, pa, r in zip(tests, ps, p_adj, reject, strict=True):
        sel = selection_for(trials, t.trial_ids, base)
        what = f"the {t.kind.replace('_', ' ')} fault"
        wprov = nb.provenance(WILSON, sel, f"tasks whose outcome under {what} differs from the original's",
                              unit="tasks", alpha=alpha)  # fmt: skip
        flip = wilson_interval(t.only_original + t.only_fault, t.n, alpha)
        orig = wilson_interval(t.both + t.only_original, t.n, alpha)
        under = wilson_interval(t.both + t.only_fault, t.n, alpha)
        mprov = nb.provenance(mcnemar_p, sel, f"original run against {what}, task by task", unit="tasks",
                              exact=True)  # fmt: skip
        aprov = nb.provenance(bh_adjust, every, f"{what}: McNemar p adjusted over the family", unit="tasks",
                              alpha=alpha)  # fmt: skip
        out += [
            *nb.rate_numbers(f"{t.key}.flip", flip, wprov),
            *nb.rate_numbers(f"{t.key}.acc.original", orig, nb.provenance(WILSON, sel, "original runs passed",
                                                                          unit="tasks", alpha=alpha)),
            *nb.rate_numbers(f"{t.key}.acc.fault", under, nb.provenance(WILSON, sel, f"runs passed under {what}",
                                                                        unit="tasks", alpha=alpha)),
            nb.count(f"{t.key}.n.only-original", t.only_original, mprov),
            nb.count(f"{t.key}.n.only-fault", t.only_fault, mprov),
            nb.pvalue(f"{t.key}.mcnemar.p", p, mprov),
            nb.pvalue(f"{t.key}.mcnemar.p-adj", pa, aprov),
            nb.flag(f"{t.key}.significant", r, aprov),
        ]  # fmt: skip
        rows.append({"model": t.model, "kind": t.kind, "key": t.key, "tasks": t.n, "flip": json_float(flip.rate),
                     "only_original": t.only_original, "only_fault": t.only_fault, "p": json_float(p),
                     "p_adj": json_float(pa),
                     "significant": r})  # fmt: skip
    return out, rows
