"""Capability accuracy per task group and model (heatmap) in this study."""

from __future__ import annotations

from matplotlib.figure import Figure

from slmbench.figures.layout import study_figure
from slmbench.figures.registry import figure
from slmbench.figures.source import Source
from slmbench.figures.studies import Study
from slmbench.figures.variant_grid import grid_panel


@figure(reads=("capability",))
def draw(src: Source) -> Figure:
    """Each model's ``cap.group.<group>``."""
    panel = grid_panel(
        Study.groups,
        Study.group,
        header=lambda g: g.replace("_", " "),
        cbar_label="accuracy",
    )
    return study_figure(src, panel, title="Accuracy by task group", empty="no capability trials", height=3.0)
