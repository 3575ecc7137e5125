"""Composite reliability against parameter count, one panel per study."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.axes import Axes

from slmbench.figures.data import composite
from slmbench.figures.layout import study_figure
from slmbench.figures.plots import percent_axis, scatter_models


def _panel(ax: Axes, table: pd.DataFrame, study: str) -> None:
    scatter_models(ax, table, "params_b", "composite", study=study)
    ax.set_xscale("log")
    ax.set_xlabel("parameters (billions, log scale)")
    ax.set_ylabel("composite reliability")
    percent_axis(ax)


def draw(trials: pd.DataFrame, out: Path, **inputs: Any) -> None:
    """Draw the figure from ``trials`` into ``out``."""
    table = composite(trials, inputs).dropna(subset=["params_b"])
    study_figure(
        table, _panel, out, title="Composite reliability vs model size", empty="no reliability trials"
    )
