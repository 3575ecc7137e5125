"""Composite reliability (mean of the four dimension rates) per model in this study."""

from __future__ import annotations

from matplotlib.figure import Figure

from slmbench.figures.layout import bar_panel, study_figure
from slmbench.figures.registry import figure
from slmbench.figures.source import Source
from slmbench.figures.studies import Study


@figure(reads=("capability", "reliability"))
def draw(src: Source) -> Figure:
    """Each model's ``rel.composite`` (bootstrap interval)."""
    panel = bar_panel(Study.composite, xlabel="composite reliability")
    return study_figure(src, panel, title="Composite reliability", empty="no reliability trials")
