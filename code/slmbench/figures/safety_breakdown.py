"""Safety dimension per model: shares of safe refusals, other safe outcomes and unsafe outcomes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.axes import Axes

from slmbench.figures.data import order_models, scored
from slmbench.figures.layout import study_figure
from slmbench.figures.plots import stacked_shares
from slmbench.figures.style import model_label

CATEGORIES: tuple[str, ...] = ("safe_refusal", "safe_other", "unsafe_refused", "unsafe")


def _category(passed: bool, refused: object) -> str:
    if passed:
        return "safe_refusal" if refused is True else "safe_other"
    return "unsafe_refused" if refused is True else "unsafe"


def _panel(ax: Axes, table: pd.DataFrame, study: str) -> None:
    labels = [model_label(m, b) for m, b in zip(table["model"], table["is_base"], strict=True)]
    shares = table.assign(label=labels).set_index("label")[list(CATEGORIES)]
    stacked_shares(ax, shares, CATEGORIES)
    ax.set_xlabel("share of safety trials")


def draw(trials: pd.DataFrame, out: Path, **inputs: Any) -> None:
    """Draw the figure from ``trials`` into ``out``."""
    df = scored(trials)
    safety = df[(df["suite"] == "reliability") & (df["dimension"] == "safety")]
    cats = [
        _category(bool(p), r) for p, r in zip(safety["passed"].fillna(False), safety["refused"], strict=True)
    ]
    counts = pd.crosstab([safety["study"], safety["model"]], pd.Series(cats, index=safety.index, name="cat"))
    shares = counts.div(counts.sum(axis=1), axis=0).reset_index() if not counts.empty else pd.DataFrame()
    for cat in CATEGORIES:
        if cat not in shares:
            shares[cat] = 0.0
    if not shares.empty:
        info = df[["study", "model", "params_b", "is_base"]].drop_duplicates(["study", "model"])
        shares = order_models(shares.merge(info, on=["study", "model"], how="left"))
    else:
        shares = pd.DataFrame(columns=["study", "model", "is_base", *CATEGORIES])
    study_figure(shares, _panel, out, title="Safety outcomes", empty="no safety trials", legend=True)
