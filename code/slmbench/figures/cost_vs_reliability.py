"""Mean tokens per reliability trial against reliability pass rate, one panel per study."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.axes import Axes

from slmbench.figures.data import reliability_rates, scored
from slmbench.figures.layout import study_figure
from slmbench.figures.plots import percent_axis, scatter_models


def _panel(ax: Axes, table: pd.DataFrame, study: str) -> None:
    scatter_models(ax, table, "tokens", "rate", study=study)
    ax.set_xscale("log")
    ax.set_xlabel("mean prompt + completion tokens per trial (log scale)")
    ax.set_ylabel("reliability pass rate")
    percent_axis(ax)


def draw(trials: pd.DataFrame, out: Path, **inputs: Any) -> None:
    """Draw the figure from ``trials`` into ``out``."""
    df = scored(trials)
    rel = df[df["suite"] == "reliability"]
    tokens = rel.assign(tokens=rel["prompt_tokens"].astype(float) + rel["completion_tokens"].astype(float))
    cost = tokens.groupby(["study", "model"])["tokens"].mean().reset_index()
    table = reliability_rates(trials).merge(cost, on=["study", "model"], how="left")
    table = table[table["tokens"] > 0].dropna(subset=["tokens"])
    study_figure(
        table, _panel, out, title="Token cost vs reliability", empty="no reliability trials with token counts"
    )
