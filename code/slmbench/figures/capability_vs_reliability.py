"""Capability accuracy against composite reliability per model in this study."""

from __future__ import annotations

import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from slmbench.figures.layout import scatter_panel, study_figure
from slmbench.figures.registry import figure
from slmbench.figures.source import Source
from slmbench.figures.studies import Study

_POINTS = scatter_panel(
    Study.acc, Study.composite, xlabel="capability accuracy", ylabel="composite reliability", x_percent=True
)


def _panel(ax: Axes, src: Source, study: Study, models: pd.DataFrame) -> bool:
    if not _POINTS(ax, src, study, models):
        return False
    ax.plot([0, 1], [0, 1], color="#bbbbbb", lw=0.6, ls=":", zorder=0)  # equality, not a number
    return True


@figure(reads=("capability", "reliability"))
def draw(src: Source) -> Figure:
    """Each model's capability accuracy against its composite reliability (the paper's two headline rates)."""
    return study_figure(
        src,
        _panel,
        title="Capability vs reliability",
        empty="no model with both capability and reliability",
    )
