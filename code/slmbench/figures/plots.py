"""Drawing primitives shared by the figure modules (per-model scatter, bars, heatmaps, stacked shares)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.axes import Axes
from matplotlib.patches import Patch

from slmbench.figures.style import BASE_COLOR, BASE_HATCH, model_label, study_color


def percent_axis(ax: Axes, axis: str = "y") -> None:
    """Format a 0..1 axis as percentages, with a little margin."""
    setter = ax.set_ylim if axis == "y" else ax.set_xlim
    setter(-0.03, 1.03)
    fmt = ax.yaxis if axis == "y" else ax.xaxis
    fmt.set_major_formatter(lambda v, _pos: f"{v * 100:.0f}%")


def _err(table: pd.DataFrame, value: str, lo: str, hi: str) -> np.ndarray | None:
    if lo not in table or hi not in table or table[[lo, hi]].isna().all().all():
        return None
    low = (table[value] - table[lo]).clip(lower=0).fillna(0).to_numpy(dtype=float)
    high = (table[hi] - table[value]).clip(lower=0).fillna(0).to_numpy(dtype=float)
    return np.vstack([low, high])


def scatter_models(
    ax: Axes, table: pd.DataFrame, x: str, y: str, *, study: str, ylo: str = "lo", yhi: str = "hi"
) -> None:
    """One labelled point per model with vertical interval bars; base models hollow and grey."""
    for is_base, part in table.groupby("is_base", sort=True):
        color = BASE_COLOR if is_base else study_color(study)
        ax.errorbar(
            part[x].to_numpy(dtype=float),
            part[y].to_numpy(dtype=float),
            yerr=_err(part, y, ylo, yhi),
            fmt="s" if is_base else "o",
            color=color,
            mfc="white" if is_base else color,
            ms=5,
            capsize=2,
            lw=0.8,
            label="base model" if is_base else None,
        )
    for row in table.itertuples(index=False):
        ax.annotate(
            model_label(str(row.model), bool(row.is_base)),
            (float(getattr(row, x)), float(getattr(row, y))),
            xytext=(3, 3),
            textcoords="offset points",
            fontsize=6,
        )


def hbar_models(
    ax: Axes, table: pd.DataFrame, value: str, *, study: str, lo: str = "lo", hi: str = "hi"
) -> None:
    """Horizontal bars per model (largest model on top) with Wilson bars; base models grey and hatched."""
    pos = np.arange(len(table))
    colors = [BASE_COLOR if b else study_color(study) for b in table["is_base"]]
    bars = ax.barh(pos, table[value].to_numpy(dtype=float), color=colors, xerr=_err(table, value, lo, hi))
    for bar, is_base in zip(bars, table["is_base"], strict=True):
        if is_base:
            bar.set_hatch(BASE_HATCH)
            bar.set_edgecolor("white")
    ax.set_yticks(
        pos, [model_label(str(m), bool(b)) for m, b in zip(table["model"], table["is_base"], strict=True)]
    )
    percent_axis(ax, "x")


def heatmap(ax: Axes, grid: pd.DataFrame, *, cbar_label: str = "pass rate") -> None:
    """A 0..1 heatmap with percentage annotations (rows: models, columns: conditions)."""
    sns.heatmap(
        grid.astype(float),
        ax=ax,
        vmin=0.0,
        vmax=1.0,
        cmap="viridis",
        annot=grid.astype(float).map(lambda v: "" if np.isnan(v) else f"{v * 100:.0f}"),
        fmt="",
        annot_kws={"fontsize": 6},
        cbar_kws={"label": cbar_label + " (%)", "format": lambda v, _p: f"{v * 100:.0f}"},
        linewidths=0.4,
        linecolor="white",
    )
    ax.set_xlabel("")
    ax.set_ylabel("")
    ax.tick_params(axis="x", rotation=30)
    ax.tick_params(axis="y", rotation=0)
    ax.grid(False)


def stacked_shares(ax: Axes, shares: pd.DataFrame, categories: Sequence[str], palette: str = "Set2") -> None:
    """Horizontal stacked bars of shares (rows: labels; columns: ``categories``, each row summing to 1)."""
    colors = sns.color_palette(palette, len(categories))
    left = np.zeros(len(shares))
    pos = np.arange(len(shares))
    for cat, color in zip(categories, colors, strict=True):
        vals = shares[cat].to_numpy(dtype=float) if cat in shares else np.zeros(len(shares))
        ax.barh(pos, vals, left=left, color=color, label=cat.replace("_", " "))
        left += vals
    ax.set_yticks(pos, list(shares.index))
    percent_axis(ax, "x")


def base_legend_handle() -> Patch:
    """Legend entry that explains the base-model style."""
    return Patch(
        facecolor=BASE_COLOR, hatch=BASE_HATCH, edgecolor="white", label="base model (floor control)"
    )
