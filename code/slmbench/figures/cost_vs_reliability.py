"""Mean tokens per reliability trial against composite reliability in this study."""

from __future__ import annotations

from matplotlib.figure import Figure

from slmbench.figures.layout import scatter_panel, study_figure
from slmbench.figures.registry import figure
from slmbench.figures.source import Source
from slmbench.figures.studies import Study


@figure(reads=("capability", "reliability"))
def draw(src: Source) -> Figure:
    """Each model's ``rel.tokens.mean`` against its composite reliability."""
    panel = scatter_panel(
        Study.tokens,
        Study.composite,
        xlabel="mean prompt + completion tokens per trial (log scale)",
        ylabel="composite reliability",
        x_log=True,
    )
    return study_figure(src, panel, title="Token cost vs reliability", empty="no token counts in the records")
