"""Rates and lookups that figures draw from: trials tables and (when present) analysis topic JSON files."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
from statsmodels.stats.proportion import proportion_confint

from slmbench.figures.style import STUDY_ORDER

logger = logging.getLogger(__name__)

DIMENSIONS: tuple[str, ...] = ("consistency", "robustness", "fault_tolerance", "safety")
PERTURBATIONS: tuple[str, ...] = ("original", "paraphrase", "verbose", "concise", "typos", "reordered")
FAULTS: tuple[str, ...] = (
    "original",
    "fault_timeout",
    "fault_rate_limit",
    "fault_error",
    "fault_schema_drift",
)
RATE_COLUMNS: tuple[str, ...] = ("n", "k", "rate", "lo", "hi")


def scored(trials: pd.DataFrame) -> pd.DataFrame:
    """Trials that count towards a model's score (infrastructure errors are excluded)."""
    out = trials[trials["outcome"] != "infra_error"].copy()
    out["is_base"] = out["is_base"].fillna(False).astype(bool)
    return out


def wilson(k: int, n: int) -> tuple[float, float]:
    """95% Wilson interval of ``k`` successes in ``n`` trials (NaN when n is 0)."""
    if n == 0:
        return float("nan"), float("nan")
    lo, hi = proportion_confint(k, n, alpha=0.05, method="wilson")
    rate = k / n
    # rounding can put an end a hair past the estimate (e.g. lo = 3e-17 for 0/9); error bars need lo <= rate <= hi
    return max(0.0, min(float(lo), rate)), min(1.0, max(float(hi), rate))


def rates(df: pd.DataFrame, by: Sequence[str], value: str = "passed") -> pd.DataFrame:
    """Pass rate with a Wilson interval per group of ``by``: columns ``by`` + n, k, rate, lo, hi."""
    if df.empty:
        return pd.DataFrame(columns=[*by, *RATE_COLUMNS])
    grouped = df.assign(_v=df[value].fillna(False).astype(bool)).groupby(list(by), dropna=False, sort=True)
    table = grouped["_v"].agg(n="size", k="sum").reset_index()
    table["rate"] = table["k"] / table["n"]
    bounds = [wilson(int(k), int(n)) for k, n in zip(table["k"], table["n"], strict=True)]
    table["lo"] = [b[0] for b in bounds]
    table["hi"] = [b[1] for b in bounds]
    return table


def model_info(df: pd.DataFrame) -> pd.DataFrame:
    """One row per (study, model): params_b and is_base."""
    cols = ["study", "model", "params_b", "is_base"]
    if df.empty:
        return pd.DataFrame(columns=cols)
    info = df[cols].drop_duplicates(["study", "model"]).copy()
    info["is_base"] = info["is_base"].fillna(False).astype(bool)
    return info.reset_index(drop=True)


def with_info(table: pd.DataFrame, df: pd.DataFrame) -> pd.DataFrame:
    """Attach params_b/is_base to a per-(study, model) table, ordered by study then size."""
    merged = table.merge(model_info(df), on=["study", "model"], how="left")
    return order_models(merged)


def order_models(table: pd.DataFrame) -> pd.DataFrame:
    """Sort rows by study (fixed order), parameter count, then model name."""
    if table.empty:
        return table
    rank = {s: i for i, s in enumerate(STUDY_ORDER)}
    key = table["study"].map(lambda s: rank.get(s, len(rank)))
    return (
        table.assign(_s=key)
        .sort_values(["_s", "params_b", "model"], na_position="last", kind="mergesort")
        .drop(columns="_s")
        .reset_index(drop=True)
    )


def studies_in(df: pd.DataFrame) -> list[str]:
    """Studies present in ``df``, in the fixed order (others after, sorted)."""
    present = set(df["study"].dropna().unique()) if not df.empty else set()
    return [s for s in STUDY_ORDER if s in present] + sorted(present - set(STUDY_ORDER))


def capability_rates(trials: pd.DataFrame) -> pd.DataFrame:
    """Capability-suite accuracy per (study, model) with model info."""
    df = scored(trials)
    return with_info(rates(df[df["suite"] == "capability"], ["study", "model"]), df)


def reliability_rates(trials: pd.DataFrame) -> pd.DataFrame:
    """Reliability-suite pass rate per (study, model) over all dimensions and variants."""
    df = scored(trials)
    return with_info(rates(df[df["suite"] == "reliability"], ["study", "model"]), df)


def dimension_rates(trials: pd.DataFrame) -> pd.DataFrame:
    """Pass rate per (study, model, dimension) of the reliability suite."""
    df = scored(trials)
    rel = df[(df["suite"] == "reliability") & df["dimension"].isin(DIMENSIONS)]
    return with_info(rates(rel, ["study", "model", "dimension"]), df)


def composite(trials: pd.DataFrame, inputs: Mapping[str, Any] | None = None) -> pd.DataFrame:
    """Composite reliability (mean of the dimension rates) per (study, model).

    Columns study, model, composite, n_dims, lo, hi, params_b, is_base. For our study the interval is read
    from the ``reliability`` topic (keys ``rel.composite.<m>.lo``/``.hi``) when it exists, NaN otherwise. For
    the reproduced study the published composite (``external`` topic, ``ext.rel.composite.<m>``) replaces the
    recomputed one when present, since its reports lack per-task rows for some dimensions.
    """
    dims = dimension_rates(trials)
    cols = ["study", "model", "composite", "n_dims", "lo", "hi", "params_b", "is_base"]
    if dims.empty:
        return pd.DataFrame(columns=cols)
    comp = (
        dims.groupby(["study", "model"])
        .agg(composite=("rate", "mean"), n_dims=("rate", "size"))
        .reset_index()
    )
    numbers = topic_numbers(inputs or {}, "reliability")
    ours = comp["study"] == "slmbench"
    comp["lo"] = [
        numbers.get(f"rel.composite.{sanitise(m)}.lo") if o else None
        for m, o in zip(comp["model"], ours, strict=True)
    ]
    comp["hi"] = [
        numbers.get(f"rel.composite.{sanitise(m)}.hi") if o else None
        for m, o in zip(comp["model"], ours, strict=True)
    ]
    comp[["lo", "hi"]] = comp[["lo", "hi"]].astype(float)
    published = topic_numbers(inputs or {}, "external")
    for i in comp.index[comp["study"] == "karmacharya2026"]:
        value = published.get(f"ext.rel.composite.{sanitise(str(comp.at[i, 'model']))}")
        if value is not None:
            comp.loc[i, ["composite", "n_dims"]] = [value, len(DIMENSIONS)]
    return with_info(comp, scored(trials))[cols]


def sanitise(name: str) -> str:
    """A model or group name as it appears in result keys (lowercase, other runs of characters → ``-``)."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower())


def topic_numbers(inputs: Mapping[str, Any], topic: str) -> dict[str, float]:
    """Numeric values of a topic's numbers by key (empty when the topic file is absent)."""
    data = load_topic(inputs, topic)
    if data is None:
        return {}
    out: dict[str, float] = {}
    for num in data.get("numbers", []):
        if isinstance(num.get("value"), int | float) and not isinstance(num.get("value"), bool):
            out[str(num["key"])] = float(num["value"])
    return out


def topic_path(inputs: Mapping[str, Any], topic: str) -> Path | None:
    """Path of topic ``topic``: ``inputs["topics"][topic]``, else ``<analysis_dir>/<topic>.json``."""
    topics = inputs.get("topics") or {}
    if topic in topics:
        return Path(topics[topic])
    analysis_dir = inputs.get("analysis_dir")
    return Path(analysis_dir) / f"{topic}.json" if analysis_dir is not None else None


def load_topic(inputs: Mapping[str, Any], topic: str) -> dict[str, Any] | None:
    """The topic JSON named by a figure's ``inputs`` (see ``topic_path``), or None when absent."""
    path = topic_path(inputs, topic)
    if path is None or not path.exists():
        logger.debug("no %s topic file (%s); computing from trials", topic, path)
        return None
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def topic_frame(inputs: Mapping[str, Any], topic: str, table: str) -> pd.DataFrame | None:
    """One table of a topic JSON as a DataFrame, or None when the topic or table is absent."""
    data = load_topic(inputs, topic)
    if data is None or table not in data.get("tables", {}):
        return None
    return pd.DataFrame(data["tables"][table])
