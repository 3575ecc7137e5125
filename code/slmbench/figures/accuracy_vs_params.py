"""Capability accuracy (Wilson 95% interval) against parameter count, one panel per study."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.axes import Axes

from slmbench.figures.data import capability_rates
from slmbench.figures.layout import study_figure
from slmbench.figures.plots import percent_axis, scatter_models


def _panel(ax: Axes, table: pd.DataFrame, study: str) -> None:
    scatter_models(ax, table, "params_b", "rate", study=study)
    ax.set_xscale("log")
    ax.set_xlabel("parameters (billions, log scale)")
    ax.set_ylabel("capability accuracy")
    percent_axis(ax)


def draw(trials: pd.DataFrame, out: Path, **inputs: Any) -> None:
    """Draw the figure from ``trials`` into ``out``."""
    table = capability_rates(trials).dropna(subset=["params_b"])
    study_figure(table, _panel, out, title="Capability accuracy vs model size", empty="no capability trials")
