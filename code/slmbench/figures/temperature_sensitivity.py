"""Change in capability accuracy relative to each model's lowest temperature (Newcombe 95% interval)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.axes import Axes
from statsmodels.stats.proportion import confint_proportions_2indep

from slmbench.figures.data import rates, scored, with_info
from slmbench.figures.layout import study_figure
from slmbench.figures.style import BASE_COLOR, model_label


def deltas(trials: pd.DataFrame) -> pd.DataFrame:
    """Per (study, model, temperature above the lowest): rate difference to the lowest temperature, lo, hi."""
    df = scored(trials)
    table = rates(df[df["suite"] == "capability"], ["study", "model", "temperature"])
    rows = []
    for (study, model), part in table.groupby(["study", "model"], sort=True):
        part = part.sort_values("temperature")
        temps = part["temperature"].to_numpy(dtype=float)
        ks, ns = part["k"].to_numpy(dtype=int), part["n"].to_numpy(dtype=int)
        for t, k, n in zip(temps[1:], ks[1:], ns[1:], strict=True):
            lo, hi = confint_proportions_2indep(k, n, ks[0], ns[0], method="newcomb", compare="diff")
            rows.append((study, model, t, temps[0], k / n - ks[0] / ns[0], float(lo), float(hi)))
    cols = ["study", "model", "temperature", "ref_temperature", "delta", "lo", "hi"]
    return with_info(pd.DataFrame(rows, columns=cols), df)


def _panel(ax: Axes, table: pd.DataFrame, study: str) -> None:
    for model, part in table.groupby("model", sort=False):
        base = bool(part["is_base"].iloc[0])
        err = [(part["delta"] - part["lo"]).clip(lower=0), (part["hi"] - part["delta"]).clip(lower=0)]
        ax.errorbar(
            part["temperature"], part["delta"], yerr=err, marker="o", ms=3, capsize=2, lw=0.9,
            ls="--" if base else "-", color=BASE_COLOR if base else None, label=model_label(str(model), base),
        )  # fmt: skip
    ax.axhline(0, color="#444444", lw=0.6)
    ax.set_xlabel("temperature")
    ax.set_ylabel("accuracy change vs lowest temperature (pp)")
    ax.yaxis.set_major_formatter(lambda v, _p: f"{v * 100:+.0f}")
    ax.legend(frameon=False)


def draw(trials: pd.DataFrame, out: Path, **inputs: Any) -> None:
    """Draw the figure from ``trials`` into ``out``."""
    study_figure(
        deltas(trials),
        _panel,
        out,
        title="Temperature sensitivity",
        empty="no model was run at two temperatures",
    )
