"""Capability accuracy per task group and model (heatmap), one panel per study."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.axes import Axes

from slmbench.figures.data import rates, scored, with_info
from slmbench.figures.layout import study_figure
from slmbench.figures.plots import heatmap
from slmbench.figures.style import model_label


def _panel(ax: Axes, table: pd.DataFrame, study: str) -> None:
    table = table.assign(
        label=[model_label(m, b) for m, b in zip(table["model"], table["is_base"], strict=True)]
    )
    order = list(dict.fromkeys(table["label"]))
    grid = table.pivot(index="label", columns="group", values="rate").reindex(order)
    heatmap(ax, grid, cbar_label="accuracy")


def draw(trials: pd.DataFrame, out: Path, **inputs: Any) -> None:
    """Draw the figure from ``trials`` into ``out``."""
    df = scored(trials)
    cap = df[df["suite"] == "capability"]
    table = with_info(rates(cap, ["study", "model", "group"]), df)
    study_figure(table, _panel, out, title="Accuracy by task group", empty="no capability trials", width=4.8)
