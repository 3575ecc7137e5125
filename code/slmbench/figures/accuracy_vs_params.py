"""Capability accuracy (Wilson 95% interval) against parameter count in this study."""

from __future__ import annotations

from matplotlib.figure import Figure

from slmbench.figures.layout import scatter_panel, study_figure
from slmbench.figures.registry import figure
from slmbench.figures.source import Source
from slmbench.figures.studies import Study


@figure(reads=("capability",))
def draw(src: Source) -> Figure:
    """Each model's ``cap.acc`` against its size."""
    panel = scatter_panel(
        Study.params,
        Study.acc,
        xlabel="parameters (billions, log scale)",
        ylabel="capability accuracy",
        x_log=True,
    )
    return study_figure(src, panel, title="Capability accuracy vs model size", empty="no capability trials")
