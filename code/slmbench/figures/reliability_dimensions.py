"""Pass rate per reliability dimension and model (grouped bars, Wilson 95% intervals), one panel per study."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.axes import Axes

from slmbench.figures.data import DIMENSIONS, dimension_rates
from slmbench.figures.layout import study_figure
from slmbench.figures.plots import percent_axis
from slmbench.figures.style import BASE_HATCH, model_label


def _panel(ax: Axes, table: pd.DataFrame, study: str) -> None:
    models = list(dict.fromkeys(table["model"]))
    base = dict(zip(table["model"], table["is_base"], strict=False))
    colors = sns.color_palette("colorblind", len(DIMENSIONS))
    width = 0.8 / len(DIMENSIONS)
    for j, (dim, color) in enumerate(zip(DIMENSIONS, colors, strict=True)):
        part = table[table["dimension"] == dim].set_index("model").reindex(models)
        pos = np.arange(len(models)) + (j - (len(DIMENSIONS) - 1) / 2) * width
        err = np.vstack(
            [
                (part["rate"] - part["lo"]).clip(lower=0).fillna(0),
                (part["hi"] - part["rate"]).clip(lower=0).fillna(0),
            ]
        )
        bars = ax.bar(pos, part["rate"].fillna(0), width, yerr=err, color=color, label=dim.replace("_", " "))
        for bar, model in zip(bars, models, strict=True):
            if base[model]:
                bar.set_hatch(BASE_HATCH)
    ax.set_xticks(
        np.arange(len(models)), [model_label(m, bool(base[m])) for m in models], rotation=30, ha="right"
    )
    ax.set_ylabel("pass rate")
    percent_axis(ax)
    ax.legend(frameon=False, ncols=2)


def draw(trials: pd.DataFrame, out: Path, **inputs: Any) -> None:
    """Draw the figure from ``trials`` into ``out``."""
    study_figure(
        dimension_rates(trials),
        _panel,
        out,
        title="Reliability by dimension",
        empty="no reliability trials",
        width=5.0,
    )
