"""Median wall time per capability trial against capability accuracy in this study."""

from __future__ import annotations

from matplotlib.figure import Figure

from slmbench.figures.layout import scatter_panel, study_figure
from slmbench.figures.registry import figure
from slmbench.figures.source import Source
from slmbench.figures.studies import Study


@figure(reads=("capability",))
def draw(src: Source) -> Figure:
    """Each model's ``cap.wall-s.median`` against its capability accuracy."""
    panel = scatter_panel(
        Study.wall,
        Study.acc,
        xlabel="median wall time per trial (s, log scale)",
        ylabel="capability accuracy",
        x_log=True,
    )
    return study_figure(src, panel, title="Latency vs accuracy", empty="no timed capability trials")
