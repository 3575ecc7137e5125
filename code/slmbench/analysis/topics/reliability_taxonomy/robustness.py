"""Robustness in the taxonomy of ``reliability_taxonomy``: prompt robustness (outcome flips under rephrasings
against the null-control floor on one build) and fault robustness (each fault kind against the task's original
prompt), over units (``analysis.units``: identical repeats once).

The rephrasings or fault kinds of a model's task share its original run, so they are not independent pairs: each
task counts once (``flips.per_cluster``). A rate is the mean over tasks of each task's share, with a Wilson interval
over the tasks; a test is the exact sign test on the task-level differences (with one outcome per task on each
side, the exact McNemar test); ``n`` counts tasks of a model (``all``: task-model pairs)."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from slmbench.analysis import numbers as nb
from slmbench.analysis import phrases
from slmbench.analysis import phrases_taxonomy as ph
from slmbench.analysis.numbers import Number
from slmbench.analysis.selection import selection_for
from slmbench.analysis.stats_rates import newcombe_diff, wilson_interval, wilson_share_interval
from slmbench.analysis.stats_tests import bh_adjust, paired_sign_p
from slmbench.analysis.topics.flips import differ, pair_ids, per_cluster, perturbed_pairs, unit_pairs
from slmbench.vocab import FAULT_KINDS

ANY_FAULT = "any"
"""The slug of every fault kind pooled."""
POOLED = "all"
"""The row slug of the instruction-tuned models pooled."""


def unit_noun(s: str) -> str:
    """What one unit of row ``s`` is called in a phrase: a task of the model, or of the pooled row a task-model
    pair."""
    return "task-model pair" if s == POOLED else "task"


SHARE = wilson_share_interval
WILSON = wilson_interval


def _ids(clusters: pd.DataFrame) -> list[str]:
    return [t for ids in clusters["trial_ids"] for t in ids] if len(clusters) else []


def _select(trials: pd.DataFrame, ids: list[str] | set[str], base: dict[str, Any]) -> dict[str, Any]:
    return selection_for(trials, ids, base) if ids else {**base, "trial_id": []}


def share_numbers(key: str, shares: pd.Series, prov: dict[str, Any], alpha: float) -> list[Number]:
    """``key`` (the mean of per-task ``shares``), ``.lo .hi`` (Wilson over the tasks) and ``.n`` (tasks)."""
    lo, hi = SHARE(float(shares.sum()), len(shares), alpha)
    mean = float(shares.mean()) if len(shares) else math.nan
    return [nb.rate(key, mean, prov), nb.rate(f"{key}.lo", lo, prov), nb.rate(f"{key}.hi", hi, prov),
            nb.count(f"{key}.n", len(shares), prov)]  # fmt: skip


def prompt_numbers(
    rob: pd.DataFrame,
    null: pd.DataFrame,
    s: str,
    trials: pd.DataFrame,
    sels: tuple[dict[str, Any], dict[str, Any], dict[str, Any]],
    alpha: float,
) -> list[Number]:
    """``tax.prompt.flip-rate.<s>`` (mean over tasks of the share of a task's rephrased runs whose outcome differs
    from its original's; ``.n`` tasks, ``.n-pairs`` rephrased runs), ``tax.prompt.floor.<s>`` (reruns of an
    unchanged prompt on one build whose outcome differs, one per task: the null control's ``unit_pairs``),
    ``tax.prompt.excess.<s>`` (their difference, Newcombe's interval) and ``tax.phrase.prompt.<s>``. ``sels``: the
    base selections of the robustness units, of the null control and of both."""
    tasks = per_cluster(perturbed_pairs(rob))
    rob_sel = _select(trials, _ids(tasks), sels[0])
    flips = tasks["flip"].astype(float) if len(tasks) else pd.Series(dtype=float)
    prov = nb.provenance(SHARE, rob_sel, "mean over tasks of the share of a task's rephrased runs whose outcome "
                         "differs from its original's", unit="tasks", alpha=alpha)  # fmt: skip
    floor = unit_pairs(null)
    floor_flips = differ(floor, "passed")
    fsel = _select(trials, pair_ids(floor), sels[1])
    fprov = nb.provenance(WILSON, fsel, "reruns of an unchanged prompt on one build whose outcome differs (one "
                          "pair per task)", unit="tasks", alpha=alpha)  # fmt: skip
    out = [
        *share_numbers(f"tax.prompt.flip-rate.{s}", flips, prov, alpha),
        nb.count(f"tax.prompt.flip-rate.{s}.n-pairs", int(tasks["pairs"].sum()) if len(tasks) else 0, prov),
        *nb.rate_numbers(f"tax.prompt.floor.{s}",
                         wilson_interval(int(floor_flips.sum()), len(floor_flips), alpha), fprov),
    ]  # fmt: skip
    d, lo, hi = newcombe_diff(float(flips.sum()), len(flips), int(floor_flips.sum()), len(floor_flips), alpha)
    both = _select(trials, {*_ids(tasks), *pair_ids(floor)}, sels[2])
    eprov = nb.provenance(newcombe_diff, both, "flip rate under rephrasings minus the null-control flip rate on "
                          "one build", unit="tasks", alpha=alpha)  # fmt: skip
    out += [nb.rate(f"tax.prompt.excess.{s}{x}", v, eprov) for x, v in (("", d), (".lo", lo), (".hi", hi))]
    mean = float(flips.mean()) if len(flips) else math.nan
    phrase = ph.prompt_phrase(mean, len(flips), int(floor_flips.sum()), len(floor_flips), lo, hi, 1 - alpha,
                              unit_noun(s))  # fmt: skip
    out.append(nb.text(f"tax.phrase.prompt.{s}", phrase, eprov))
    return out


def fault_numbers(
    ft: pd.DataFrame, s: str, trials: pd.DataFrame, base: dict[str, Any], alpha: float
) -> list[Number]:
    """Per fault kind (and every kind pooled, ``any``) over the tasks whose faulted units pair with the original
    prompt's: ``tax.fault.<kind>.<s>.under-fault`` and ``.original`` (mean over tasks of the pass share under the
    fault / of the original; Wilson over the tasks, ``.n`` tasks), ``.diff`` (the first minus the second),
    ``.n.only-original`` and ``.n.only-fault`` (tasks that pass more often on the original / under the fault),
    ``.sign.p`` (exact sign test over the tasks) and ``tax.phrase.fault.<kind>.<s>``. The fault kinds of one row
    are one family: their p-values are Benjamini-Hochberg adjusted over the kinds with a test (``.sign.padj``)
    and their phrases, and ``tax.phrase.fault.kinds.<s>`` (every kind in one sentence), read the adjusted p; the
    pooled test (``any``: a task's pass share over its fault kinds against its original) stands alone."""
    pairs = perturbed_pairs(ft)
    out: list[Number] = []
    tests = []
    for kind in (*FAULT_KINDS, ANY_FAULT):
        part = pairs if kind == ANY_FAULT else pairs[pairs["variant"] == f"fault_{kind}"]
        tasks = per_cluster(part)
        sel = _select(trials, _ids(tasks), base)
        key = f"tax.fault.{nb.slug(kind)}.{s}"
        what = "every fault kind" if kind == ANY_FAULT else f"the {kind} fault"
        index = tasks.set_index(["model", "task_id"]) if len(tasks) else tasks
        original = index["original"].astype(float) if len(tasks) else pd.Series(dtype=float)
        under = index["perturbed"].astype(float) if len(tasks) else pd.Series(dtype=float)
        p, n, worse, better = paired_sign_p(original, under)
        wprov = nb.provenance(
            SHARE, sel, f"pass rate under {what}, mean over tasks", unit="tasks", alpha=alpha
        )
        oprov = nb.provenance(SHARE, sel, f"pass rate of the original prompt of the tasks under {what}",
                              unit="tasks", alpha=alpha)  # fmt: skip
        tprov = nb.provenance(paired_sign_p, sel, f"original prompt against {what}, task by task (exact sign "
                              "test)", unit="tasks")  # fmt: skip
        diff = float(under.mean() - original.mean()) if n else math.nan
        out += [
            *share_numbers(f"{key}.under-fault", under, wprov, alpha),
            *share_numbers(f"{key}.original", original, oprov, alpha),
            nb.rate(f"{key}.diff", diff, tprov),
            nb.count(f"{key}.n.only-original", worse, tprov),
            nb.count(f"{key}.n.only-fault", better, tprov),
            nb.pvalue(f"{key}.sign.p", p, tprov),
        ]
        tests.append((kind, key, sel, n, worse, better, p))
    kinds = [t for t in tests if t[0] != ANY_FAULT]
    p_adj, _ = bh_adjust([t[-1] for t in kinds], alpha)
    adjusted = {t[0]: pa for t, pa in zip(kinds, p_adj, strict=True)}
    family = phrases.family_phrase(sum(math.isfinite(pa) for pa in p_adj), "fault kind")
    shown_kinds = []
    for kind, key, sel, n, worse, better, p in tests:
        shown = "a fault" if kind == ANY_FAULT else f"the {kind.replace('_', ' ')} fault"
        pa = adjusted.get(kind)
        if pa is None:
            prov = nb.provenance(paired_sign_p, sel, "original prompt against every fault kind, task by task",
                                 unit="tasks")  # fmt: skip
        else:
            prov = nb.provenance(bh_adjust, sel, f"original prompt against the {kind} fault, exact sign test over "
                                 "tasks, Benjamini-Hochberg over the fault kinds of the row", unit="tasks",
                                 alpha=alpha)  # fmt: skip
            out.append(nb.pvalue(f"{key}.sign.padj", pa, prov))
            shown_kinds.append((kind.replace("_", " "), n, worse, better, pa if family else p))
        phrase = ph.fault_phrase(shown, n, worse, better, p, pa, family, unit_noun(s))
        out.append(nb.text(f"tax.phrase.fault.{nb.slug(kind)}.{s}", phrase, prov))
    every = _select(trials, _ids(per_cluster(pairs)), base)
    kprov = nb.provenance(ph.fault_kinds_phrase, every, "every fault kind against the original prompt, task by "
                          "task", unit="tasks")  # fmt: skip
    out.append(
        nb.text(
            f"tax.phrase.fault.kinds.{s}", ph.fault_kinds_phrase(shown_kinds, family, unit_noun(s)), kprov
        )
    )
    return out
