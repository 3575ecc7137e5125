"""Per-model breakdowns that topics emit for the figures: model sizes, task groups, variants, safety outcomes,
and a per-model median or mean of a trial measure.

Each block returns numbers (keys under the caller's prefix) and the rows of a table that lists what was
computed, so a figure finds every value it draws as a number and its models and categories in a table.
"""

from __future__ import annotations

import math
from typing import Any, Literal

import pandas as pd

from slmbench.analysis import numbers as nb
from slmbench.analysis.numbers import Number
from slmbench.analysis.stats_rates import wilson_interval
from slmbench.analysis.topics.common import SCORED, counts_by, model_info, scored
from slmbench.vocab import SAFETY_OUTCOMES, SafetyOutcome

WILSON = wilson_interval


def model_table(
    prefix: str, df: pd.DataFrame, selection: dict[str, Any]
) -> tuple[list[Number], list[dict[str, Any]]]:
    """``<prefix>.params.<model>`` (billions of parameters) per model of ``df``; rows ordered by size.

    Rows: model, params_b, is_base (the order and the marks of every per-model figure).
    """
    info = model_info(df) if len(df) else pd.DataFrame(columns=["params_b", "is_base"])
    out: list[Number] = []
    rows: list[dict[str, Any]] = []
    for model in info.index:
        params_b = float(info.loc[model, "params_b"])
        prov = nb.provenance("first", {**selection, "model": model}, f"parameters of {model} (billions)")
        out.append(nb.size(f"{prefix}.params.{nb.slug(model)}", params_b, prov))
        rows.append({"model": model, "params_b": params_b, "is_base": bool(info.loc[model, "is_base"])})
    rows.sort(key=lambda r: (r["params_b"], r["model"]))
    if rows:
        prov = nb.provenance(
            "min, max", selection, "the smallest and the largest model (billions of parameters)"
        )
        out += [nb.size(f"{prefix}.params.min", rows[0]["params_b"], prov)]
        out += [nb.size(f"{prefix}.params.max", rows[-1]["params_b"], prov)]
    return out, rows


def group_block(
    prefix: str, df: pd.DataFrame, selection: dict[str, Any], alpha: float
) -> tuple[list[Number], list[dict[str, Any]]]:
    """Accuracy with a Wilson interval per task group and model: ``<prefix>.group.<group>.<model>``."""
    out: list[Number] = []
    rows: list[dict[str, Any]] = []
    for (group, model), (k, n) in (counts_by(df, "group", "model") if len(df) else {}).items():
        r = wilson_interval(k, n, alpha)
        sel = {**selection, **SCORED, "group": group, "model": model}
        prov = nb.provenance(WILSON, sel, f"accuracy of {model} on {group}")
        out += nb.rate_numbers(f"{prefix}.group.{nb.slug(group)}.{nb.slug(model)}", r, prov)
        rows.append({"group": group, "model": model, "k": k, "n": n, "acc": r.rate, "lo": r.lo, "hi": r.hi})
    return out, rows


def variant_block(
    prefix: str, df: pd.DataFrame, selection: dict[str, Any], dimensions: tuple[str, ...], alpha: float
) -> tuple[list[Number], list[dict[str, Any]]]:
    """Pass rate per dimension, variant (the original prompt included) and model of reliability trials:
    ``<prefix>.variant.<dimension>.<variant>.<model>``."""
    out: list[Number] = []
    rows: list[dict[str, Any]] = []
    part = df[df["dimension"].isin(dimensions)] if len(df) else df
    for (dim, variant, model), (k, n) in (
        counts_by(part, "dimension", "variant", "model") if len(part) else {}
    ).items():
        r = wilson_interval(k, n, alpha)
        sel = {**selection, **SCORED, "dimension": dim, "variant": variant, "model": model}
        prov = nb.provenance(WILSON, sel, f"{dim} pass rate of {model} under {variant}", alpha=alpha)
        key = f"{prefix}.variant.{nb.slug(dim)}.{nb.slug(variant)}.{nb.slug(model)}"
        out.append(nb.rate(key, r.rate, prov))
        rows.append({"dimension": dim, "variant": variant, "model": model, "k": k, "n": n, "rate": r.rate})
    return out, rows


def safety_outcome(passed: object, refused: object) -> SafetyOutcome:
    """The outcome category of one safety trial (a missing refusal flag counts as no refusal)."""
    did_refuse = (
        refused is not None and not (isinstance(refused, float) and math.isnan(refused)) and bool(refused)
    )
    if bool(passed):
        return "safe_refusal" if did_refuse else "safe_other"
    return "unsafe_refused" if did_refuse else "unsafe"


def safety_block(
    prefix: str, df: pd.DataFrame, selection: dict[str, Any]
) -> tuple[list[Number], list[dict[str, Any]]]:
    """Share of each safety outcome among a model's scored safety trials:
    ``<prefix>.safety.outcome.<outcome>.<model>`` (the shares of a model sum to one)."""
    out: list[Number] = []
    rows: list[dict[str, Any]] = []
    saf = scored(df[df["dimension"] == "safety"]) if len(df) else df
    for model, part in saf.groupby("model", sort=True):
        cats = [safety_outcome(p, r) for p, r in zip(part["passed"], part["refused"], strict=True)]
        for cat in SAFETY_OUTCOMES:
            k = sum(c == cat for c in cats)
            sel = {**selection, **SCORED, "dimension": "safety", "model": model}
            prov = nb.provenance(safety_outcome, sel, f"share of {model}'s safety trials: {cat}")
            out.append(
                nb.rate(f"{prefix}.safety.outcome.{nb.slug(cat)}.{nb.slug(model)}", k / len(part), prov)
            )
            rows.append({"model": model, "outcome": cat, "k": k, "n": len(part), "share": k / len(part)})
    return out, rows


def per_model_summary(
    key: str,
    df: pd.DataFrame,
    columns: tuple[str, ...],
    how: Literal["median", "mean"],
    selection: dict[str, Any],
    what: str,
    digits: int,
) -> tuple[list[Number], list[dict[str, Any]]]:
    """The median or mean of the sum of ``columns`` over each model's scored trials that have all of them:
    ``<key>.<model>``. A model without any such trial (or a table without the columns) gets no number."""
    if not len(df) or not set(columns) <= set(df.columns):
        return [], []
    values = sum(
        (pd.to_numeric(df[c], errors="coerce") for c in columns), start=pd.Series(0.0, index=df.index)
    )
    frame = pd.DataFrame({"model": df["model"], "v": values}).loc[scored(df).index].dropna(subset=["v"])
    out: list[Number] = []
    rows: list[dict[str, Any]] = []
    for model, part in frame.groupby("model", sort=True):
        value = float(part["v"].median() if how == "median" else part["v"].mean())
        prov = nb.provenance(
            how, {**selection, **SCORED, "model": model}, f"{how} {what} of {model}", columns=list(columns)
        )
        out.append(nb.stat(f"{key}.{nb.slug(model)}", value, prov, digits=digits))
        rows.append({"model": model, "n": len(part), how: value})
    return out, rows
