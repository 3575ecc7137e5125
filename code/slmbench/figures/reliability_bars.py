"""Reliability-suite pass rate (Wilson 95% interval) per model, one panel per study."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.axes import Axes

from slmbench.figures.data import reliability_rates
from slmbench.figures.layout import study_figure
from slmbench.figures.plots import hbar_models


def _panel(ax: Axes, table: pd.DataFrame, study: str) -> None:
    hbar_models(ax, table, "rate", study=study)
    ax.set_xlabel("reliability pass rate (all dimensions)")


def draw(trials: pd.DataFrame, out: Path, **inputs: Any) -> None:
    """Draw the figure from ``trials`` into ``out``."""
    study_figure(
        reliability_rates(trials), _panel, out, title="Reliability pass rate", empty="no reliability trials"
    )
