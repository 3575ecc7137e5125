"""Capability accuracy against reliability-suite pass rate per model, one panel per study."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.axes import Axes

from slmbench.figures.data import capability_rates, reliability_rates
from slmbench.figures.layout import study_figure
from slmbench.figures.plots import percent_axis, scatter_models


def _panel(ax: Axes, table: pd.DataFrame, study: str) -> None:
    scatter_models(ax, table, "cap", "rel", study=study, ylo="rel_lo", yhi="rel_hi")
    ax.plot([0, 1], [0, 1], color="#bbbbbb", lw=0.6, ls=":")
    ax.set_xlabel("capability accuracy")
    ax.set_ylabel("reliability pass rate")
    percent_axis(ax, "x")
    percent_axis(ax, "y")


def draw(trials: pd.DataFrame, out: Path, **inputs: Any) -> None:
    """Draw the figure from ``trials`` into ``out``."""
    cap = capability_rates(trials)[["study", "model", "rate", "params_b", "is_base"]].rename(
        columns={"rate": "cap"}
    )
    rel = reliability_rates(trials)[["study", "model", "rate", "lo", "hi"]]
    rel = rel.rename(columns={"rate": "rel", "lo": "rel_lo", "hi": "rel_hi"})
    table = cap.merge(rel, on=["study", "model"], how="inner")
    study_figure(
        table,
        _panel,
        out,
        title="Capability vs reliability",
        empty="no model with both capability and reliability",
    )
