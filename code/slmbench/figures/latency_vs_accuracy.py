"""Median wall time per capability trial against capability accuracy, one panel per study."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.axes import Axes

from slmbench.figures.data import capability_rates, scored
from slmbench.figures.layout import study_figure
from slmbench.figures.plots import percent_axis, scatter_models


def _panel(ax: Axes, table: pd.DataFrame, study: str) -> None:
    scatter_models(ax, table, "wall_s", "rate", study=study)
    ax.set_xscale("log")
    ax.set_xlabel("median wall time per trial (s, log scale)")
    ax.set_ylabel("capability accuracy")
    percent_axis(ax)


def draw(trials: pd.DataFrame, out: Path, **inputs: Any) -> None:
    """Draw the figure from ``trials`` into ``out``."""
    df = scored(trials)
    cap = df[df["suite"] == "capability"]
    wall = cap.groupby(["study", "model"])["wall_s"].median().reset_index()
    table = capability_rates(trials).merge(wall, on=["study", "model"], how="left")
    table = table[table["wall_s"] > 0].dropna(subset=["wall_s"])
    study_figure(table, _panel, out, title="Latency vs accuracy", empty="no timed capability trials")
