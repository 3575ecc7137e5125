"""Capability accuracy per model across the sampling temperatures of the primary results."""

from __future__ import annotations

import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from slmbench.figures.layout import study_figure
from slmbench.figures.plots import percent_axis
from slmbench.figures.registry import figure
from slmbench.figures.source import Source
from slmbench.figures.studies import Study
from slmbench.figures.temperature_plot import temperature_panel

_LINES = temperature_panel(Study.temp_acc, ylabel="capability accuracy")


def _panel(ax: Axes, src: Source, study: Study, models: pd.DataFrame) -> bool:
    """The lines, where the primary results hold two temperatures or more (else nothing to sweep: the protocol
    study's sweep is ``protocol_temperature``'s)."""
    if (src.peek(f"{study.temp}.n.temperatures") or 0) < 2 or not _LINES(ax, src, study, models):
        return False
    percent_axis(ax)
    return True


@figure(reads=("capability", "temperature"))
def draw(src: Source) -> Figure:
    """Each model's ``temp.cap.acc.<m>.<t>`` with its interval."""
    return study_figure(
        src,
        _panel,
        title="Capability accuracy vs temperature",
        empty="the primary results hold one temperature: no sweep",
        height=3.6,
    )
