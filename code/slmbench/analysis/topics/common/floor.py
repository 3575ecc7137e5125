"""The base-model floor: the best base model's accuracy, and which instruction-tuned models clear it."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from slmbench.analysis import numbers as nb
from slmbench.analysis import phrases
from slmbench.analysis.numbers import Number
from slmbench.analysis.stats_rates import is_eligible
from slmbench.analysis.topics.common.rows import scored


def floor_block(
    prefix: str,
    rows: list[dict[str, Any]],
    df: pd.DataFrame,
    selection: dict[str, Any],
    alpha: float,
    margin: float,
) -> list[Number]:
    """The base-model floor (the best base model's accuracy) and which instruction-tuned models clear it.

    A model clears the floor when the lower end of its Wilson interval beats the floor plus ``margin``
    (``is_eligible``, over tasks: ``unit_k`` passes of ``units``); each row of ``rows`` (``accuracy_block``'s)
    gets ``eligible``.
    Keys: ``<prefix>.baseline.acc``, ``.eligible.margin``, ``.eligible.<model>``, ``.n.eligible``,
    ``.phrase.floor``.
    """
    sc = scored(df)
    base_models = sorted(str(r["model"]) for r in rows if r["is_base"])
    floor = (
        float(sc[sc["model"].isin(base_models)].groupby("model")["passed"].mean().max())
        if base_models
        else 0.0
    )
    if not math.isfinite(floor):
        floor = 0.0
    fprov = nb.provenance(
        "base-model floor", {**selection, "model": base_models}, "best accuracy of the base models"
    )
    out = [
        nb.rate(f"{prefix}.baseline.acc", floor, fprov),
        nb.rate(f"{prefix}.eligible.margin", margin, fprov),
    ]
    n_eligible = 0
    for row in rows:
        ok = is_eligible(row["unit_k"], row["units"], floor, margin, alpha) and not row["is_base"]
        n_eligible += ok
        row["eligible"] = ok
        eprov = nb.provenance(
            is_eligible,
            {**selection, "model": row["model"]},
            "Wilson lower bound beats the base-model floor plus the margin",
            baseline=floor,
            margin=margin,
            alpha=alpha,
        )
        out.append(nb.flag(f"{prefix}.eligible.{nb.slug(row['model'])}", ok, eprov))
    out.append(nb.count(f"{prefix}.n.eligible", n_eligible, fprov))
    n_instruct = sum(not row["is_base"] for row in rows)
    phrase = (
        phrases.floor_phrase(n_eligible, n_instruct, floor, margin)
        if base_models
        else "no base model was run"
    )
    out.append(nb.text(f"{prefix}.phrase.floor", phrase, fprov))
    return out
