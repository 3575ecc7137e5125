"""This study against the reproduced published study (Karmacharya 2026) in one figure: capability accuracy and
composite reliability against model size, both studies' models on shared axes (the other figures show this
study only)."""

from __future__ import annotations

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from slmbench.figures.layout import KeyOf, model_points
from slmbench.figures.plots import label_points, log_axis, percent_axis, place_labels, scatter_points
from slmbench.figures.registry import figure
from slmbench.figures.source import Source
from slmbench.figures.studies import OURS, REPRODUCED, Study
from slmbench.figures.style import BASE_COLOR, no_data, panels

PANELS: tuple[tuple[str, KeyOf, str], ...] = (
    ("Capability accuracy", Study.acc, "capability accuracy"),
    ("Composite reliability", Study.composite, "composite reliability"),
)


def _panel(ax: Axes, src: Source, y: KeyOf, ylabel: str) -> tuple[list[Study], bool]:
    """Both studies' model points of ``y`` against size; the studies drawn, and whether a base model was."""
    drawn, base = [], False
    for study in (OURS, REPRODUCED):
        points = model_points(src, study, study.models(src), Study.params, y, x_log=True)
        if points:
            scatter_points(ax, points, study.color)
            label_points(ax, points)
            drawn.append(study)
            base = base or any(p.is_base for p in points)
    if drawn:
        log_axis(ax, "x")
        ax.margins(x=0.15)
        percent_axis(ax)
        ax.set_xlabel("parameters (billions, log scale)")
        ax.set_ylabel(ylabel)
    return drawn, base


@figure(reads=("capability", "reliability", "external"))
def draw(src: Source) -> Figure:
    """``cap.acc.<m>`` and ``ext.acc.<m>``, ``rel.composite.<m>`` and ``ext.rel.composite.<m>`` (as published)
    against ``cap.params.<m>`` / ``ext.params.<m>``."""
    fig, axes = panels(len(PANELS), ncols=1, height=3.2)  # one panel a row: room for 13 labels
    studies: set[str] = set()
    base = False
    for ax, (title, y, ylabel) in zip(axes, PANELS, strict=True):
        drawn, with_base = _panel(ax, src, y, ylabel)
        base = base or with_base
        if not drawn:
            no_data(ax, f"no {ylabel}")
        ax.set_title(title)
        studies |= {s.id for s in drawn}
    handles = [
        Line2D([], [], marker="o", ls="none", color=s.color, label=s.label)
        for s in (OURS, REPRODUCED)
        if s.id in studies
    ]
    if base:  # the legend explains the base models' style only where one is drawn
        handles.append(
            Line2D([], [], marker="s", ls="none", color=BASE_COLOR, mfc="white", label="base model")
        )
    fig.legend(handles=handles, loc="outside lower center", ncols=len(handles), frameon=False)
    fig.suptitle("This study and the reproduced study")
    place_labels(fig)
    return fig
