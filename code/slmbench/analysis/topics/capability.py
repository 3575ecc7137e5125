"""Topic ``capability``: our study's accuracy per model and task group, pairwise tests, size, the floor."""

from __future__ import annotations

from typing import Any

import pandas as pd

from slmbench.analysis import numbers as nb
from slmbench.analysis import phrases
from slmbench.analysis.numbers import TopicResult
from slmbench.analysis.stats_rates import is_eligible, wilson_interval
from slmbench.analysis.topics import with_defaults
from slmbench.analysis.topics.common import (
    PKG,
    accuracy_block,
    counts_by,
    model_info,
    primary_rows,
    scored,
)

STUDY = "slmbench"


def compute(trials: pd.DataFrame, events: pd.DataFrame | None, params: dict[str, Any]) -> TopicResult:
    """Accuracy (overall and per group) with Wilson intervals, pairwise Fisher tests, size correlation, bootstrap.

    Uses the lowest temperature present, so a temperature sweep does not mix into the headline.
    """
    p = with_defaults(params)
    alpha = p["alpha"]
    ours, sel = primary_rows(trials, STUDY)
    df = ours[ours["suite"] == "capability"]
    if len(df):
        df = df[df["temperature"] == df["temperature"].min()]
    sel["suite"] = "capability"
    if len(df):
        sel["temperature"] = float(df["temperature"].iloc[0])
    res = TopicResult()
    prov = nb.provenance("len", sel, "capability trials")
    res.numbers += [
        nb.count("cap.n.models", df["model"].nunique(), prov),
        nb.count("cap.n.trials", len(df), prov),
        nb.count("cap.n.infra-errors", int((df["outcome"] == "infra_error").sum()), prov),
        nb.count("cap.n.tasks", df["task_id"].nunique(), prov),
        nb.count("cap.n.groups", df["group"].nunique(), prov),
    ]
    nums, rows = accuracy_block("cap", df, sel, p)
    res.numbers += nums
    res.tables["accuracy"] = rows
    groups: list[dict[str, Any]] = []
    for (group, model), (k, n) in (counts_by(df, "group", "model") if len(df) else {}).items():
        r = wilson_interval(k, n, alpha)
        gsel = {**sel, "group": group, "model": model}
        gprov = nb.provenance(f"{PKG}.stats_rates.wilson_interval", gsel, f"accuracy of {model} on {group}")
        res.numbers += nb.rate_numbers(f"cap.group.{nb.slug(group)}.{nb.slug(model)}", r, gprov)
        groups.append({"group": group, "model": model, "k": k, "n": n, "acc": r.rate, "lo": r.lo, "hi": r.hi})
    res.tables["groups"] = groups
    info = model_info(df) if len(df) else pd.DataFrame(columns=["is_base"])
    sc = scored(df)
    base_models = [m for m in info.index if info.loc[m, "is_base"]]
    floor = (
        float(sc[sc["model"].isin(base_models)].groupby("model")["passed"].mean().max())
        if base_models
        else 0.0
    )
    margin = float(p["margin"])
    fprov = nb.provenance(
        "base-model floor", {**sel, "model": base_models}, "best accuracy of the base models"
    )
    res.numbers.append(nb.rate("cap.baseline.acc", floor, fprov))
    res.numbers.append(nb.rate("cap.eligible.margin", margin, fprov))
    n_eligible = 0
    for row in rows:
        ok = is_eligible(row["k"], row["n"], floor, margin, alpha) and not row["is_base"]
        n_eligible += ok
        row["eligible"] = ok
        eprov = nb.provenance(
            f"{PKG}.stats_rates.is_eligible",
            {**sel, "model": row["model"]},
            "Wilson lower bound beats the base-model floor plus the margin",
            baseline=floor,
            margin=margin,
            alpha=alpha,
        )
        res.numbers.append(nb.flag(f"cap.eligible.{nb.slug(row['model'])}", ok, eprov))
    res.numbers.append(nb.count("cap.n.eligible", n_eligible, fprov))
    n_instruct = sum(not row["is_base"] for row in rows)
    phrase = (
        phrases.floor_phrase(n_eligible, n_instruct, floor, margin)
        if base_models
        else "no base model was run"
    )
    res.numbers.append(nb.text("cap.phrase.floor", phrase, fprov))
    return res
