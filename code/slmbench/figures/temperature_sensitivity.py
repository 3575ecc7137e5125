"""Change in capability accuracy relative to each model's lowest temperature (Newcombe 95% interval) in the
primary results of this study (the protocol study's sweep is ``protocol_temperature``'s)."""

from __future__ import annotations

import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from slmbench.figures.layout import study_figure
from slmbench.figures.registry import figure
from slmbench.figures.source import Source
from slmbench.figures.studies import Study
from slmbench.figures.temperature_plot import temperature_panel

_LINES = temperature_panel(Study.temp_diff, ylabel="accuracy change vs lowest temperature (pp)")


def _panel(ax: Axes, src: Source, study: Study, models: pd.DataFrame) -> bool:
    if not _LINES(ax, src, study, models):
        return False
    ax.axhline(0, color="#444444", lw=0.6)
    ax.yaxis.set_major_formatter(lambda v, _p: f"{v * 100:+.0f}")
    return True


@figure(reads=("capability", "temperature"))
def draw(src: Source) -> Figure:
    """Each model's ``temp.cap.diff.<m>.<t>`` (shared tasks) with its interval."""
    return study_figure(
        src,
        _panel,
        title="Temperature sensitivity",
        empty="the primary results hold one temperature: no sweep",
        height=3.6,
    )
