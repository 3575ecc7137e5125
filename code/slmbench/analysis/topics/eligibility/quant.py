"""Requantised variants against the shipped file of the same model, prompt and task, paired by test item:
the change of accuracy, exact McNemar, and eligibility lost or gained (``elig.quant.…``)."""

from __future__ import annotations

import math
from typing import Any

from slmbench.analysis import numbers as nb
from slmbench.analysis import phrases
from slmbench.analysis.numbers import Number
from slmbench.analysis.stats_tests import flip_binomial_p, mcnemar_p
from slmbench.analysis.topics.eligibility.common import finite
from slmbench.analysis.topics.eligibility.runs import Run
from slmbench.vocab import SHIPPED


def _right(run: Run) -> dict[str, bool]:
    test = run.test.rows
    return {str(i): bool(r) for i, r in zip(test["id"], test["right"], strict=True)}


def quant_rows(runs: list[Run], rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each requantised run against the shipped run of the same model, prompt and task (``rows``: the runs' table
    rows, in the same order)."""
    by_cfg = {(r.model, r.prompt, r.quant, r.task): (r, row) for r, row in zip(runs, rows, strict=True)}
    out = []
    for (model, prompt, quant, task), (run, row) in sorted(by_cfg.items()):
        shipped = by_cfg.get((model, prompt, SHIPPED, task))
        if quant == SHIPPED or shipped is None:
            continue
        ship, srow = shipped
        a, b = _right(ship), _right(run)
        ids = sorted(set(a) & set(b))
        both = sum(a[i] and b[i] for i in ids)
        only_ship = sum(a[i] and not b[i] for i in ids)
        only_var = sum(b[i] and not a[i] for i in ids)
        neither = len(ids) - both - only_ship - only_var
        out.append({
            "key": row["key"], "shipped_key": srow["key"], "task": task, "model": model, "prompt": prompt, "quant": quant,
            "params_b": row["params_b"], "n_paired": len(ids), "acc": row["acc"], "lo": row["lo"], "gap": row["gap"],
            "shipped_acc": srow["acc"], "shipped_lo": srow["lo"], "shipped_gap": srow["gap"],
            "delta": (only_var - only_ship) / len(ids) if ids else None,
            "only_shipped": only_ship, "only_variant": only_var,
            "mcnemar_p": finite(mcnemar_p(both, only_ship, only_var, neither)) if ids else None,
            "eligible": row["eligible"], "shipped_eligible": srow["eligible"],
        })  # fmt: skip
    return out


def quant_summary(qrows: list[dict[str, Any]], prov: dict[str, Any]) -> list[Number]:
    """Counts of requantised variants that lowered or raised accuracy, per type too, the sign test over them and
    eligibility lost or gained."""
    lower = sum((q["delta"] or 0) < 0 for q in qrows)
    higher = sum((q["delta"] or 0) > 0 for q in qrows)
    lost = sum(q["shipped_eligible"] and not q["eligible"] for q in qrows)
    gained = sum(q["eligible"] and not q["shipped_eligible"] for q in qrows)
    deltas = [q["delta"] for q in qrows if q["delta"] is not None]
    out = [
        nb.count("elig.quant.n.pairs", len(qrows), prov),
        nb.count("elig.quant.n.lower", lower, prov),
        nb.count("elig.quant.n.higher", higher, prov),
        nb.count("elig.quant.n.eligible-lost", lost, prov),
        nb.count("elig.quant.n.eligible-gained", gained, prov),
        nb.rate("elig.quant.mean-delta", sum(deltas) / len(deltas) if deltas else math.nan, prov),
    ]
    for qtype in sorted({q["quant"] for q in qrows}):
        part = [q for q in qrows if q["quant"] == qtype]
        d = [q["delta"] for q in part if q["delta"] is not None]
        s = nb.slug(qtype)
        out += [
            nb.count(f"elig.quant.{s}.n.pairs", len(part), prov),
            nb.count(f"elig.quant.{s}.n.lower", sum((q["delta"] or 0) < 0 for q in part), prov),
            nb.count(f"elig.quant.{s}.n.higher", sum((q["delta"] or 0) > 0 for q in part), prov),
            nb.rate(f"elig.quant.{s}.mean-delta", sum(d) / len(d) if d else math.nan, prov),
        ]
    out.append(
        nb.text("elig.phrase.quant-eligibility", phrases.eligibility_change_phrase(lost, gained), prov)
    )
    sign_p = flip_binomial_p(lower, higher)
    out.append(
        nb.pvalue("elig.quant.sign.p", sign_p, {**prov, "function": nb.function_name(flip_binomial_p)})
    )
    out.append(nb.text("elig.phrase.quant", phrases.quant_phrase(len(qrows), lower, higher, sign_p), prov))
    return out
