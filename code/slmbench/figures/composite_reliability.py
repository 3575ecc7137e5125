"""Composite reliability (mean of the four dimension rates) per model, one panel per study."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.axes import Axes

from slmbench.figures.data import composite
from slmbench.figures.layout import study_figure
from slmbench.figures.plots import hbar_models


def _panel(ax: Axes, table: pd.DataFrame, study: str) -> None:
    hbar_models(ax, table, "composite", study=study)
    for i, n in enumerate(table["n_dims"]):
        if int(n) < 4:
            ax.text(0.01, i, f"{int(n)}/4 dims", va="center", fontsize=5.5, color="white")
    ax.set_xlabel("composite reliability")


def draw(trials: pd.DataFrame, out: Path, **inputs: Any) -> None:
    """Draw the figure from ``trials`` (and the analysis composite intervals, if present) into ``out``."""
    table = composite(trials, inputs)
    study_figure(table, _panel, out, title="Composite reliability", empty="no reliability trials")
