"""This study beside the reproduced published study (Karmacharya 2026) in one figure: capability accuracy and
composite reliability against model size, each study in panels of its own (their suites, servers and reliability
blocks differ, so their numbers are not set on one axis), the other figures show this study only."""

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

PANELS: tuple[tuple[KeyOf, str], ...] = (
    (Study.acc, "capability accuracy"),
    (Study.composite, "composite reliability"),
)


def _panel(ax: Axes, src: Source, study: Study, y: KeyOf, ylabel: str) -> tuple[bool, bool]:
    """One study's model points of ``y`` against size; whether any was drawn, and whether a base model was."""
    points = model_points(src, study, study.models(src), Study.params, y, x_log=True)
    if not points:
        return False, False
    scatter_points(ax, points, study.color)
    label_points(ax, points)
    log_axis(ax, "x")
    ax.margins(x=0.15)
    percent_axis(ax)
    ax.set_xlabel("parameters (billions, log scale)")
    ax.set_ylabel(ylabel)
    return True, any(p.is_base for p in points)


@figure(reads=("capability", "reliability", "external"))
def draw(src: Source) -> Figure:
    """``cap.acc.<m>`` and ``ext.acc.<m>``, ``rel.composite.<m>`` and ``ext.rel.composite.<m>`` (as published)
    against ``cap.params.<m>`` / ``ext.params.<m>``."""
    pairs = [(study, panel) for panel in PANELS for study in (OURS, REPRODUCED)]
    fig, axes = panels(len(pairs), ncols=2, height=2.6)  # a row per measure, a column per study
    studies: set[str] = set()
    base = False
    for ax, (study, (y, ylabel)) in zip(axes, pairs, strict=True):
        drawn, with_base = _panel(ax, src, study, y, ylabel)
        base = base or with_base
        if drawn:
            studies.add(study.id)
        else:
            no_data(ax, f"no {ylabel}")
        ax.set_title(study.label)  # the row's measure is its y label
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
