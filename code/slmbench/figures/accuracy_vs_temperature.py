"""Capability accuracy per model across sampling temperatures, one panel per study."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.axes import Axes

from slmbench.figures.data import rates, scored, with_info
from slmbench.figures.layout import study_figure
from slmbench.figures.plots import percent_axis
from slmbench.figures.style import BASE_COLOR, model_label


def _panel(ax: Axes, table: pd.DataFrame, study: str) -> None:
    for model, part in table.groupby("model", sort=False):
        part = part.sort_values("temperature")
        base = bool(part["is_base"].iloc[0])
        err = [(part["rate"] - part["lo"]).clip(lower=0), (part["hi"] - part["rate"]).clip(lower=0)]
        ax.errorbar(
            part["temperature"],
            part["rate"],
            yerr=err,
            marker="o",
            ms=3,
            capsize=2,
            lw=0.9,
            ls="--" if base else "-",
            color=BASE_COLOR if base else None,
            label=model_label(str(model), base),
        )
    if table["temperature"].nunique() == 1:
        ax.text(0.02, 0.02, "single temperature in data", transform=ax.transAxes, fontsize=6, color="#666666")
    ax.set_xlabel("temperature")
    ax.set_ylabel("capability accuracy")
    percent_axis(ax)
    ax.legend(loc="best", frameon=False)


def draw(trials: pd.DataFrame, out: Path, **inputs: Any) -> None:
    """Draw the figure from ``trials`` into ``out``."""
    df = scored(trials)
    cap = df[df["suite"] == "capability"]
    table = with_info(rates(cap, ["study", "model", "temperature"]), df)
    study_figure(table, _panel, out, title="Capability accuracy vs temperature", empty="no capability trials")
