"""Pass rate over all reliability dimensions (Wilson 95% interval) per model in this study."""

from __future__ import annotations

from matplotlib.figure import Figure

from slmbench.figures.layout import bar_panel, study_figure
from slmbench.figures.registry import figure
from slmbench.figures.source import Source
from slmbench.figures.studies import Study


@figure(reads=("capability", "reliability"))
def draw(src: Source) -> Figure:
    """Each model's ``rel.pooled``."""
    panel = bar_panel(Study.pooled, xlabel="reliability pass rate (all dimensions)")
    return study_figure(src, panel, title="Reliability pass rate", empty="no reliability trials")
