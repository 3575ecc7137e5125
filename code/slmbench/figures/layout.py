"""One panel per study: the layout most figures share."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd
from matplotlib.axes import Axes

from slmbench.figures.data import studies_in
from slmbench.figures.style import no_data, panels, save, shared_legend, study_label

PanelDrawer = Callable[[Axes, pd.DataFrame, str], None]


def study_figure(
    table: pd.DataFrame,
    draw_panel: PanelDrawer,
    out: Path,
    *,
    title: str,
    empty: str = "no data",
    width: float = 3.6,
    height: float = 3.0,
    polar: bool = False,
    legend: bool = False,
) -> None:
    """Draw ``draw_panel(ax, rows_of_study, study)`` for each study in ``table`` and save to ``out``.

    With no rows at all, a single explicit "no data" panel is saved instead. ``legend`` puts one shared
    legend below the panels (for panels that share their categories).
    """
    studies = studies_in(table)
    fig, axes = panels(len(studies), width=width, height=height, polar=polar)
    if not studies:
        no_data(axes[0], empty)
    for ax, study in zip(axes, studies, strict=False):
        draw_panel(ax, table[table["study"] == study].reset_index(drop=True), study)
        ax.set_title(study_label(study))
    if legend:
        shared_legend(fig, axes)
    fig.suptitle(title, fontsize=9)
    save(fig, out)
