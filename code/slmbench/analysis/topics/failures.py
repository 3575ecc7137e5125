"""Topic ``failures``: shares of failure classes per model under both rule orders, bootstrap by model."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from slmbench.analysis import numbers as nb
from slmbench.analysis.numbers import TopicResult
from slmbench.analysis.stats_bootstrap import cluster_bootstrap
from slmbench.analysis.topics import with_defaults
from slmbench.analysis.topics.common import PKG, primary_rows
from slmbench.vocab import FAILURE_CLASSES

STUDY = "slmbench"
CLASSES = (*FAILURE_CLASSES, "unclassified")
ORDERS = (("failure_class", "share"), ("failure_class_clock_first", "share-alt"))


def compute(trials: pd.DataFrame, events: pd.DataFrame | None, params: dict[str, Any]) -> TopicResult:
    """Failure-class shares (of failed, non-infra trials), pooled and per model, for both orders.

    Failures without a class (a record that predates classification) count as ``unclassified``.
    """
    p = with_defaults(params)
    df, base_sel = primary_rows(trials, STUDY)
    fails = df[df["outcome"] == "failure"].copy()
    for column, _ in ORDERS:
        fails[column] = fails[column].fillna("unclassified")
    sel: dict[str, Any] = {**base_sel, "outcome": "failure"}
    res = TopicResult()
    prov = nb.provenance("len", base_sel, "trials and failures of our study")
    changed = int((fails["failure_class"] != fails["failure_class_clock_first"]).sum())
    res.numbers += [
        nb.count("fail.n.trials", len(df), prov),
        nb.count("fail.n.failures", len(fails), prov),
        nb.count("fail.n.infra-errors", int((df["outcome"] == "infra_error").sum()), prov),
        nb.count("fail.n.models", fails["model"].nunique(), prov),
        nb.count("fail.n-changed", changed, prov),
    ]
    rows: list[dict[str, Any]] = []
    fb = f"{PKG}.stats_bootstrap.cluster_bootstrap"
    for column, name in ORDERS:
        for cls in CLASSES:

            def share(part: pd.DataFrame, column: str = column, cls: str = cls) -> float:
                return float((part[column] == cls).mean()) if len(part) else math.nan

            b = cluster_bootstrap(fails, share, n_resamples=p["n_boot"], seed=p["seed"], alpha=p["alpha"])
            csel = {**sel, column: cls}
            prov = nb.provenance(fb, sel, f"share of failures classed {cls} ({column}), models resampled")
            key = f"fail.{name}.{nb.slug(cls)}"
            res.numbers += [
                nb.rate(f"{key}{s}", v, prov) for s, v in (("", b.estimate), (".lo", b.lo), (".hi", b.hi))
            ]
            for model, part in fails.groupby("model", sort=True):
                v = share(part)
                mprov = nb.provenance("share", {**csel, "model": model}, f"share of {model}'s failures")
                res.numbers.append(nb.rate(f"{key}.{nb.slug(model)}", v, mprov))
                rows.append(
                    {"order": column, "class": cls, "model": model, "share": v, "n_failures": len(part)}
                )
    res.tables["shares"] = rows
    return res
