"""The panel of this study (the layout most figures share) and the panels built from one key per model.

A panel drawer gets the axes, the source, the study and its models (a topic's ``models`` table, by size) and
returns whether it drew anything. Every figure shows this study only; the reproduced study is compared with it
in one figure of its own (``external_comparison``).
"""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from slmbench.figures.plots import (
    Point,
    hbar_models,
    label_points,
    labels_of,
    log_axis,
    percent_axis,
    place_labels,
    scatter_points,
)
from slmbench.figures.source import Source
from slmbench.figures.studies import OURS, Study
from slmbench.figures.style import ROW_HEIGHT, no_data, panels, shared_legend

PanelDrawer = Callable[[Axes, Source, Study, pd.DataFrame], bool]
KeyOf = Callable[[Study, str], str]
"""The key of a quantity for one study and model (e.g. ``Study.acc``)."""


def study_figure(
    src: Source,
    draw_panel: PanelDrawer,
    *,
    title: str,
    empty: str = "no data",
    height: float = ROW_HEIGHT,
    polar: bool = False,
    legend: bool = False,
) -> Figure:
    """Draw ``draw_panel`` for this study; where it drew nothing the figure says ``empty`` (a figure of a
    condition that was not run: the paper leaves it out). ``legend`` puts one shared legend below the panel."""
    fig, axes = panels(1, height=height, polar=polar)
    if not draw_panel(axes[0], src, OURS, OURS.models(src)):
        no_data(axes[0], empty)
    if legend:
        shared_legend(fig, axes)
    fig.suptitle(title)
    place_labels(fig)
    return fig


def model_points(
    src: Source, study: Study, models: pd.DataFrame, x: KeyOf, y: KeyOf, *, x_log: bool = False
) -> list[Point]:
    """A point per model that has both numbers (a positive x on a log axis), with the interval of y where the
    topic has one (``<y>.lo``/``.hi``). Records exactly what is drawn."""
    points: list[Point] = []
    for label, model, base in zip(labels_of(models), models["model"], models["is_base"], strict=True):
        xk, yk = x(study, str(model)), y(study, str(model))
        if x_log and (src.peek(xk) or 0.0) <= 0:
            continue  # no place on a log axis
        xy = src.values(xk, yk)
        if xy is None:
            continue
        (xv, yv), lo, hi = xy, src.value(f"{yk}.lo"), src.value(f"{yk}.hi")
        points.append(Point(label, xv, yv, lo, hi, bool(base)))
    return points


def scatter_panel(
    x: KeyOf, y: KeyOf, *, xlabel: str, ylabel: str, x_log: bool = False, x_percent: bool = False
) -> PanelDrawer:
    """A panel of labelled model points: ``x`` against ``y`` (a 0..1 rate)."""

    def draw(ax: Axes, src: Source, study: Study, models: pd.DataFrame) -> bool:
        points = model_points(src, study, models, x, y, x_log=x_log)
        if not points:
            return False
        scatter_points(ax, points, study.color)
        if x_log:
            log_axis(ax, "x")
            ax.margins(x=0.15)  # room for the labels of the outermost points
        if x_percent:
            percent_axis(ax, "x")
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        percent_axis(ax)
        label_points(ax, points)
        return True

    return draw


def bar_panel(value: KeyOf, *, xlabel: str, interval: bool = True) -> PanelDrawer:
    """Horizontal bars of one rate per model (largest model on top), with the interval where there is one."""

    def draw(ax: Axes, src: Source, study: Study, models: pd.DataFrame) -> bool:
        keys = [value(study, str(m)) for m in models["model"]]
        values = [src.value(k) for k in keys]
        if all(v is None for v in values):
            return False
        present = [v is not None for v in values]
        lo = [src.value(f"{k}.lo") if p and interval else None for k, p in zip(keys, present, strict=True)]
        hi = [src.value(f"{k}.hi") if p and interval else None for k, p in zip(keys, present, strict=True)]
        base = [bool(b) for b in models["is_base"]]
        hbar_models(ax, labels_of(models), values, color=study.color, base=base, lo=lo, hi=hi)
        ax.set_xlabel(xlabel)
        return True

    return draw
