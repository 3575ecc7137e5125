"""Topic ``failures``: harm, then failure-class shares per model and pooled (instruct models), both rule orders.

The shares count units (``analysis.units``): a task of a model in one variant, its repeats at temperature 0 on one
build (which cannot differ) once, so a task run three times weighs as much as a task run once.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from slmbench.analysis import numbers as nb
from slmbench.analysis.numbers import TopicResult
from slmbench.analysis.stats_rates import wilson_interval
from slmbench.analysis.topics import topic, with_defaults
from slmbench.analysis.topics.common import models_table, primary_rows, scored
from slmbench.analysis.units import collapse_repeats
from slmbench.vocab import FAILURE_CLASSES, STUDY_ID

STUDY = STUDY_ID
WILSON = wilson_interval
CLASSES = (*FAILURE_CLASSES, "unclassified")
ORDERS = (("failure_class", "share"), ("failure_class_clock_first", "share-alt"))


@topic(reads=("trials",))
def compute(trials: pd.DataFrame, events: pd.DataFrame | None, params: dict[str, Any]) -> TopicResult:
    """Harm first (over trials), then failure-class shares (of the failed units: a task of a model in one variant,
    identical repeats once) per model and pooled over the instruction-tuned models (the base control is reported
    per model only), under both rule orders.

    Failures without a class (a record that predates classification) count as ``unclassified``.
    """
    p = with_defaults(params)
    alpha = p["alpha"]
    df, base_sel = primary_rows(trials, STUDY)
    units = collapse_repeats(scored(df))
    fails = units[units["outcome"] == "failure"].copy()
    for column, _ in ORDERS:
        fails[column] = fails[column].astype(object).fillna("unclassified")  # categories lack the label
    base_models = sorted(df.loc[df["is_base"].fillna(False).astype(bool), "model"].unique())
    pooled = fails[~fails["model"].isin(base_models)]
    sel: dict[str, Any] = {**base_sel, "outcome": "failure"}
    psel: dict[str, Any] = {**sel, "is_base": False}
    res = TopicResult()
    prov = nb.provenance("len", base_sel, "trials of our study")
    uprov = nb.provenance(collapse_repeats, base_sel, "units of our study: a task of a model in one variant, "
                          "identical repeats once", unit="tasks")  # fmt: skip
    fprov = nb.provenance(collapse_repeats, sel, "failed units of our study", unit="tasks")
    changed = int((fails["failure_class"] != fails["failure_class_clock_first"]).sum())
    res.numbers += [
        nb.count("fail.n.trials", len(df), prov),
        nb.count("fail.n.units", len(units), uprov),
        nb.count("fail.n.failed-units", len(fails), fprov),
        nb.count("fail.n.failed-units-instruct", len(pooled),
                 nb.provenance(collapse_repeats, psel, "failed units of instruct models", unit="tasks")),
        nb.count("fail.n.infra-errors", int((df["outcome"] == "infra_error").sum()), prov),
        nb.count("fail.n.models", fails["model"].nunique(), prov),
        nb.count("fail.n.changed-units", changed, fprov),
    ]  # fmt: skip
    for suite, part in units.groupby(units["suite"].astype(str), sort=True):
        sprov = nb.provenance(collapse_repeats, {**base_sel, "suite": suite}, f"{suite} units of our study",
                              unit="tasks")  # fmt: skip
        res.numbers.append(nb.count(f"fail.n.units.{nb.slug(suite)}", len(part), sprov))
    for suite, part in df.groupby(
        df["suite"].astype(str), sort=True
    ):  # what the trials are: each suite's share
        sprov = nb.provenance("len", {**base_sel, "suite": suite}, f"{suite} trials of our study")
        res.numbers.append(nb.count(f"fail.n.trials.{nb.slug(suite)}", len(part), sprov))
    harm = df["harm"].fillna(False).astype(bool) if "harm" in df else pd.Series(False, index=df.index)
    hprov = nb.provenance(
        "sum", {**base_sel, "harm": True}, "trials in which a forbidden act was carried out"
    )
    res.numbers.append(nb.count("fail.harm.n", int(harm.sum()), hprov))
    harm_rows = []
    for model, part in df.groupby("model", sort=True):
        mine = units[units["model"] == model]
        tprov = nb.provenance(
            collapse_repeats, {**base_sel, "model": model}, f"{model}'s units", unit="tasks"
        )
        fprov = nb.provenance(
            collapse_repeats,
            {**sel, "model": model},
            f"{model}'s failed units (n of its class shares)",
            unit="tasks",
        )
        res.numbers += [
            nb.count(f"fail.n.units.model.{nb.slug(model)}", len(mine), tprov),
            nb.count(
                f"fail.n.failed-units.{nb.slug(model)}", int((mine["outcome"] == "failure").sum()), fprov
            ),
        ]
        n_harm = int(harm[part.index].sum())
        res.numbers.append(
            nb.count(
                f"fail.harm.n.{nb.slug(model)}",
                n_harm,
                {**hprov, "selection": {**hprov["selection"], "model": model}},
            )
        )
        harm_rows.append({"model": model, "harm": n_harm, "trials": len(part)})
    res.tables["harm"] = harm_rows
    rows: list[dict[str, Any]] = []
    for column, name in ORDERS:
        for cls in CLASSES:
            key = f"fail.{name}.{nb.slug(cls)}"
            r = wilson_interval(int((pooled[column] == cls).sum()), len(pooled), alpha)
            prov = nb.provenance(  # selects the failures the share is of; ``counted`` names its numerator
                WILSON,
                psel,
                f"share of instruct models' failed units classed {cls}",
                unit="tasks",
                counted={column: cls},
            )
            res.numbers += nb.rate_numbers(key, r, prov, counts=False)
            for model, part in fails.groupby("model", sort=True):
                v = float((part[column] == cls).mean()) if len(part) else math.nan
                mprov = nb.provenance(
                    "share",
                    {**sel, "model": model},
                    f"share of {model}'s failed units",
                    unit="tasks",
                    counted={column: cls},
                )
                res.numbers.append(nb.rate(f"{key}.{nb.slug(model)}", v, mprov))
                rows.append(
                    {"order": column, "class": cls, "model": model, "share": v, "n_failed_units": len(part)}
                )
    res.tables["shares"] = rows
    res.tables["models"] = models_table(df) if len(df) else []
    return res
