"""Composite reliability against parameter count in this study."""

from __future__ import annotations

from matplotlib.figure import Figure

from slmbench.figures.layout import scatter_panel, study_figure
from slmbench.figures.registry import figure
from slmbench.figures.source import Source
from slmbench.figures.studies import Study


@figure(reads=("capability", "reliability"))
def draw(src: Source) -> Figure:
    """Each model's ``rel.composite`` against its size."""
    panel = scatter_panel(
        Study.params,
        Study.composite,
        xlabel="parameters (billions, log scale)",
        ylabel="composite reliability",
        x_log=True,
    )
    return study_figure(
        src, panel, title="Composite reliability vs model size", empty="no model with a composite"
    )
