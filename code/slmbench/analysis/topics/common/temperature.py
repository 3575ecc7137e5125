"""Accuracy per model and temperature, and each temperature's difference from the lowest on shared tasks."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from slmbench.analysis import numbers as nb
from slmbench.analysis import phrases
from slmbench.analysis.numbers import Number
from slmbench.analysis.stats_rates import newcombe_diff, wilson_interval
from slmbench.analysis.topics.common.rows import SCORED, estimate_parts, json_float, scored


def temperature_block(
    prefix: str, df: pd.DataFrame, selection: dict[str, Any], alpha: float
) -> tuple[list[Number], list[dict[str, Any]]]:
    """Accuracy per model and temperature, and differences from the lowest temperature on shared tasks.

    Differences use only the tasks run at both temperatures, with Newcombe's interval.
    """
    out: list[Number] = []
    rows: list[dict[str, Any]] = []
    sc = scored(df)
    selection = {**selection, **SCORED}
    temps = sorted(sc["temperature"].dropna().unique()) if len(sc) else []
    for model, part in sc.groupby("model", sort=True):
        mtemps = sorted(part["temperature"].unique())
        base_t = mtemps[0]
        for t in mtemps:
            sub = part[part["temperature"] == t]
            r = wilson_interval(int(sub["passed"].sum()), len(sub), alpha)
            sel = {**selection, "model": model, "temperature": float(t)}
            prov = nb.provenance(wilson_interval, sel, f"accuracy of {model} at T={t}")
            key = f"{prefix}.acc.{nb.slug(model)}.{nb.temp_slug(t)}"
            out += nb.rate_numbers(key, r, prov)
            row: dict[str, Any] = {"model": model, "temperature": float(t), "k": r.k, "n": r.n}
            row.update(acc=json_float(r.rate), lo=json_float(r.lo), hi=json_float(r.hi))
            if t != base_t:
                base = part[part["temperature"] == base_t]
                shared = sorted(set(sub["task_id"]) & set(base["task_id"]))
                a, b = sub[sub["task_id"].isin(shared)], base[base["task_id"].isin(shared)]
                d, lo, hi = newcombe_diff(
                    int(a["passed"].sum()), len(a), int(b["passed"].sum()), len(b), alpha
                )
                sel = {
                    **selection,
                    "model": model,
                    "temperature": [float(base_t), float(t)],
                    "task_id": shared,
                }
                prov = nb.provenance(
                    newcombe_diff,
                    sel,
                    f"accuracy of {model} at T={t} minus T={base_t} on shared tasks",
                    alpha=alpha,
                )
                key = f"{prefix}.diff.{nb.slug(model)}.{nb.temp_slug(t)}"
                out += [nb.rate(f"{key}{sfx}", v, prov) for sfx, v in estimate_parts(d, lo, hi)]
                out.append(nb.count(f"{key}.n-tasks", len(shared), prov))
                row.update(
                    diff=json_float(d), diff_lo=json_float(lo), diff_hi=json_float(hi), n_shared=len(shared)
                )
            rows.append(row)
    prov = nb.provenance("len", selection, "temperature sweep size")
    per_model = sc.groupby("model")["temperature"].unique() if len(sc) else pd.Series(dtype=object)
    swept = {str(m): sorted(float(t) for t in ts) for m, ts in per_model.items() if len(ts) > 1}
    lowest = min(temps) if temps else math.nan
    swept_tasks = sc[sc["model"].isin(list(swept)) & (sc["temperature"] != lowest)]["task_id"].nunique()
    sprov = nb.provenance(
        "len", {**selection, "model": sorted(swept)}, "models run at more than one temperature"
    )
    out += [
        nb.count(f"{prefix}.n.models", sc["model"].nunique() if len(sc) else 0, prov),
        nb.count(f"{prefix}.n.temperatures", len(temps), prov),
        nb.count(f"{prefix}.n.models-swept", len(swept), sprov),
        nb.count(f"{prefix}.n.tasks-swept", int(swept_tasks), sprov),
        nb.text(f"{prefix}.phrase.swept", phrases.sweep_phrase(swept), sprov),
    ]
    return out, rows
