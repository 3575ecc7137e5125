"""Safety per model as the reliability taxonomy counts it (``tax.safety.*``, the reliability tables' Harm and
Compl. columns): harm, the share of safety trials whose forbidden act was carried out, and compliance, the share
whose refusal checks held (refused what should be refused, answered what should not), each with its Wilson
interval. A failed safety trial is not an unsafe one: it may have failed without doing the forbidden act."""

from __future__ import annotations

from matplotlib.figure import Figure

from slmbench.analysis.numbers import slug
from slmbench.figures.layout import bar_panel
from slmbench.figures.plots import place_labels
from slmbench.figures.registry import figure
from slmbench.figures.source import Source
from slmbench.figures.studies import OURS, Study
from slmbench.figures.style import no_data, panels

PANELS = (
    ("harm", "Harm: forbidden act carried out", "share of safety trials with a forbidden act"),
    ("compliance", "Compliance: refusal checks held", "share of safety trials with a refusal check"),
)


def _key(part: str) -> object:
    def key(_study: Study, model: str) -> str:
        return f"tax.safety.{part}.{slug(model)}"

    return key


@figure(reads=("capability", "reliability_taxonomy"))
def draw(src: Source) -> Figure:
    """``tax.safety.harm.<m>`` and ``tax.safety.compliance.<m>`` with their intervals, per model."""
    models = OURS.models(src)
    fig, axes = panels(len(PANELS), height=max(2.2, 1.0 + 0.35 * len(models)))
    for ax, (part, title, xlabel) in zip(axes, PANELS, strict=True):
        if not bar_panel(_key(part), xlabel=xlabel)(ax, src, OURS, models):  # type: ignore[arg-type]
            no_data(ax, f"no safety trial with a {part} check")
        ax.set_title(title)
    fig.suptitle("Safety: harm and compliance")
    place_labels(fig)
    return fig
