"""Robustness in the taxonomy of ``reliability_taxonomy``: prompt robustness (outcome flips under rephrasings
against the null-control noise floor, both paired as the topic ``reliability`` pairs them) and fault robustness
(each fault kind against the task's original prompt, paired by model, task, temperature and repeat)."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from slmbench.analysis import numbers as nb
from slmbench.analysis import phrases
from slmbench.analysis import phrases_taxonomy as ph
from slmbench.analysis.numbers import Number
from slmbench.analysis.selection import selection_for
from slmbench.analysis.stats_rates import newcombe_diff, wilson_interval
from slmbench.analysis.stats_tests import bh_adjust, mcnemar_p
from slmbench.analysis.topics.flips import (
    WILSON,
    cells,
    flip_numbers,
    paired_runs,
    perturbed_flip_numbers,
    perturbed_pairs,
    repeat_pairs,
)
from slmbench.vocab import FAULT_KINDS

ANY_FAULT = "any"
"""The slug of every fault kind pooled."""


def prompt_numbers(
    rob: pd.DataFrame,
    null: pd.DataFrame,
    s: str,
    trials: pd.DataFrame,
    sels: tuple[dict[str, Any], dict[str, Any], dict[str, Any]],
    alpha: float,
) -> list[Number]:
    """``tax.prompt.flip-rate.<s>`` (rephrased runs against their original), ``tax.prompt.floor.<s>`` (the first
    two runs of an unchanged prompt, the null control), ``tax.prompt.excess.<s>`` (their difference, Newcombe's
    interval) and ``tax.phrase.prompt.<s>``. ``sels``: the base selections of the robustness rows, of the null
    control and of both."""
    pert = perturbed_pairs(rob)
    rob_sel = selection_for(trials, {*pert["trial_id"], *pert["trial_id_base"]}, sels[0])
    floor_pairs = repeat_pairs(null)
    floor_ids = paired_runs(null)
    out = [
        *perturbed_flip_numbers(f"tax.prompt.flip-rate.{s}", pert, rob_sel, alpha),
        *flip_numbers(f"tax.prompt.floor.{s}", floor_pairs, selection_for(trials, floor_ids, sels[1]), alpha),
    ]
    _, down, up, _ = cells(pert)
    floor_flips = sum(a != b for a, b in floor_pairs)
    d, lo, hi = newcombe_diff(down + up, len(pert), floor_flips, len(floor_pairs), alpha)
    both = selection_for(trials, {*pert["trial_id"], *pert["trial_id_base"], *floor_ids}, sels[2])
    prov = nb.provenance(
        newcombe_diff,
        both,
        "flip rate under rephrasings minus the null-control flip rate",
        unit="pairs",
        alpha=alpha,
    )
    out += [nb.rate(f"tax.prompt.excess.{s}{x}", v, prov) for x, v in (("", d), (".lo", lo), (".hi", hi))]
    phrase = ph.prompt_phrase(down + up, len(pert), floor_flips, len(floor_pairs), lo, hi, 1 - alpha)
    out.append(nb.text(f"tax.phrase.prompt.{s}", phrase, prov))
    return out


def fault_numbers(
    ft: pd.DataFrame, s: str, trials: pd.DataFrame, base: dict[str, Any], alpha: float
) -> list[Number]:
    """Per fault kind (and every kind pooled, ``any``) over the faulted runs paired with the original prompt's run:
    ``tax.fault.<kind>.<s>.under-fault`` and ``.original`` (pass rates over the pairs, Wilson), ``.diff`` (the
    first minus the second), ``.n.only-original``, ``.n.only-fault``, ``.mcnemar.p`` (exact) and
    ``tax.phrase.fault.<kind>.<s>``. The fault kinds of one row are one family: their p-values are
    Benjamini-Hochberg adjusted over the kinds with a test (``.mcnemar.padj``), and their phrases read the adjusted
    p; the pooled test (``any``) stands alone."""
    pairs = perturbed_pairs(ft)
    out: list[Number] = []
    tests = []
    for kind in (*FAULT_KINDS, ANY_FAULT):
        part = pairs if kind == ANY_FAULT else pairs[pairs["variant"] == f"fault_{kind}"]
        both, only_original, only_fault, neither = cells(part)
        n = len(part)
        sel = selection_for(trials, {*part["trial_id"], *part["trial_id_base"]}, base)
        key = f"tax.fault.{nb.slug(kind)}.{s}"
        what = "every fault kind" if kind == ANY_FAULT else f"the {kind} fault"
        under = wilson_interval(both + only_fault, n, alpha)
        original = wilson_interval(both + only_original, n, alpha)
        wprov = nb.provenance(
            WILSON, sel, f"pass rate under {what}, over its pairs", unit="pairs", alpha=alpha
        )
        oprov = nb.provenance(
            WILSON, sel, f"pass rate of the original prompt paired with {what}", unit="pairs"
        )
        mprov = nb.provenance(mcnemar_p, sel, f"original prompt against {what}", unit="pairs", exact=True)
        p = mcnemar_p(both, only_original, only_fault, neither)
        out += [
            *nb.rate_numbers(f"{key}.under-fault", under, wprov),
            *nb.rate_numbers(f"{key}.original", original, oprov),
            nb.rate(f"{key}.diff", under.rate - original.rate, mprov),
            nb.count(f"{key}.n.only-original", only_original, mprov),
            nb.count(f"{key}.n.only-fault", only_fault, mprov),
            nb.pvalue(f"{key}.mcnemar.p", p, mprov),
        ]
        tests.append((kind, key, sel, n, only_original, only_fault, p))
    kinds = [t for t in tests if t[0] != ANY_FAULT]
    p_adj, _ = bh_adjust([t[-1] for t in kinds], alpha)
    adjusted = {t[0]: pa for t, pa in zip(kinds, p_adj, strict=True)}
    family = phrases.family_phrase(sum(math.isfinite(pa) for pa in p_adj), "fault kind")
    for kind, key, sel, n, only_original, only_fault, p in tests:
        shown = "a fault" if kind == ANY_FAULT else f"the {kind.replace('_', ' ')} fault"
        pa = adjusted.get(kind)
        if pa is None:
            prov = nb.provenance(
                mcnemar_p, sel, "original prompt against every fault kind", unit="pairs", exact=True
            )
        else:
            prov = nb.provenance(
                bh_adjust, sel, f"original prompt against the {kind} fault, exact McNemar p, "
                "Benjamini-Hochberg over the fault kinds of the row", unit="pairs", alpha=alpha,
            )  # fmt: skip
            out.append(nb.pvalue(f"{key}.mcnemar.padj", pa, prov))
        phrase = ph.fault_phrase(shown, n, only_original, only_fault, p, pa, family)
        out.append(nb.text(f"tax.phrase.fault.{nb.slug(kind)}.{s}", phrase, prov))
    return out
