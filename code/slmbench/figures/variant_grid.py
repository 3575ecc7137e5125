"""Model × variant pass-rate heatmaps of one reliability dimension (robustness, fault tolerance)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd
from matplotlib.axes import Axes

from slmbench.figures.data import rates, scored, with_info
from slmbench.figures.layout import study_figure
from slmbench.figures.plots import heatmap
from slmbench.figures.style import model_label


def draw_variant_grid(
    trials: pd.DataFrame, out: Path, *, dimension: str, variants: Sequence[str], title: str
) -> None:
    """Heatmap of pass rate by model (rows) and variant (columns, in ``variants`` order) per study."""
    df = scored(trials)
    part = df[(df["suite"] == "reliability") & (df["dimension"] == dimension) & df["variant"].isin(variants)]
    table = with_info(rates(part, ["study", "model", "variant"]), df)

    def panel(ax: Axes, rows: pd.DataFrame, study: str) -> None:
        rows = rows.assign(
            label=[model_label(m, b) for m, b in zip(rows["model"], rows["is_base"], strict=True)]
        )
        grid = rows.pivot(index="label", columns="variant", values="rate")
        grid = grid.reindex(
            index=list(dict.fromkeys(rows["label"])), columns=[v for v in variants if v in grid]
        )
        grid.columns = [c.removeprefix("fault_").replace("_", " ") for c in grid.columns]
        heatmap(ax, grid)

    study_figure(table, panel, out, title=title, empty=f"no {dimension.replace('_', ' ')} trials", width=4.8)
