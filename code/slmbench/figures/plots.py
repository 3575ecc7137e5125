"""Drawing primitives shared by the figure modules: labelled model points, bars, heatmaps, stacked shares.

They draw values already read from the topics (``figures.source``); none of them computes a statistic.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from weakref import WeakKeyDictionary

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from matplotlib.ticker import LogLocator, NullFormatter
from matplotlib.transforms import Bbox

from slmbench.figures.style import BASE_COLOR, BASE_HATCH, SMALL_PT, model_label, qualitative_colors

NOT_RUN = "not run"
"""What a bar or heatmap cell without a value says."""
LABEL_DISTANCES: tuple[float, ...] = (4.0, 10.0, 18.0, 28.0, 40.0)
"""How far from its point a label may go (points), nearest first."""
LABEL_DIRECTIONS: tuple[tuple[int, int], ...] = (
    (1, 0),
    (1, 1),
    (0, 1),
    (-1, 1),
    (-1, 0),
    (-1, -1),
    (0, -1),
    (1, -1),
)
"""Where a label may go around its point (right first, then counter-clockwise)."""


@dataclass(frozen=True)
class Point:
    """One model's point: its label, position and (optionally) the ends of its vertical interval."""

    label: str
    x: float
    y: float
    lo: float | None = None
    hi: float | None = None
    is_base: bool = False


def percent_axis(ax: Axes, axis: str = "y") -> None:
    """Format a 0..1 axis as percentages, with a little margin."""
    setter = ax.set_ylim if axis == "y" else ax.set_xlim
    setter(-0.03, 1.03)
    fmt = ax.yaxis if axis == "y" else ax.xaxis
    fmt.set_major_formatter(lambda v, _pos: f"{v * 100:.0f}%")


def log_axis(ax: Axes, axis: str = "x") -> None:
    """A log axis ticked at 1, 2 and 5 of each decade and labelled with plain numbers (no minor labels)."""
    target = ax.xaxis if axis == "x" else ax.yaxis
    (ax.set_xscale if axis == "x" else ax.set_yscale)("log")
    target.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    target.set_major_formatter(lambda v, _pos: f"{v:g}")
    target.set_minor_formatter(NullFormatter())


def errors(values: Sequence[float], lo: Sequence[float | None], hi: Sequence[float | None]) -> np.ndarray:
    """Error-bar lengths below and above each value (zero where an end is missing)."""
    v = np.asarray(values, dtype=float)
    low = np.array([0.0 if a is None else max(0.0, x - a) for x, a in zip(v, lo, strict=True)])
    high = np.array([0.0 if b is None else max(0.0, b - x) for x, b in zip(v, hi, strict=True)])
    return np.vstack([low, high])


def scatter_points(ax: Axes, points: Sequence[Point], color: str) -> None:
    """One point per model with its interval bar; base models hollow grey squares (labels: ``label_points``)."""
    for is_base in (False, True):
        part = [p for p in points if p.is_base == is_base]
        if not part:
            continue
        c = BASE_COLOR if is_base else color
        ax.errorbar(
            [p.x for p in part],
            [p.y for p in part],
            yerr=errors([p.y for p in part], [p.lo for p in part], [p.hi for p in part]),
            fmt="s" if is_base else "o",
            color=c,
            mfc="white" if is_base else c,
            ms=4.5,
            capsize=2,
            lw=0.8,
            label="base model" if is_base else None,
        )


def _obstacles(ax: Axes, points: Sequence[Point]) -> list[Bbox]:
    """Display-space boxes of the markers and interval bars the labels must keep clear of."""
    boxes = []
    for p in points:
        x, y = ax.transData.transform((p.x, p.y))
        boxes.append(Bbox.from_extents(x - 4, y - 4, x + 4, y + 4))
        if p.lo is not None and p.hi is not None:
            (_, lo), (_, hi) = ax.transData.transform([(p.x, p.lo), (p.x, p.hi)])
            boxes.append(Bbox.from_extents(x - 3, lo, x + 3, hi))
    return boxes


def _overlap(a: Bbox, b: Bbox) -> float:
    w = min(a.x1, b.x1) - max(a.x0, b.x0)
    h = min(a.y1, b.y1) - max(a.y0, b.y0)
    return max(w, 0.0) * max(h, 0.0)


def _outside(box: Bbox, frame: Bbox) -> float:
    """Area of ``box`` outside ``frame``."""
    return box.width * box.height - _overlap(box, frame)


_PENDING: WeakKeyDictionary[Axes, list[Point]] = WeakKeyDictionary()


def label_points(ax: Axes, points: Sequence[Point]) -> None:
    """Ask for a label on each point; ``place_labels`` places them once the whole figure is laid out."""
    _PENDING.setdefault(ax, []).extend(points)


def place_labels(fig: Figure) -> None:
    """Label the points of every panel of ``fig`` (``label_points``) where each label overlaps no other label,
    marker or interval bar: the first free place of ``LABEL_DIRECTIONS`` x ``LABEL_DISTANCES`` (else the least
    covered one), joined to its point by a thin line when it stands off. Deterministic; models at the same
    point share one label. Call it after everything else is drawn: it uses the final layout."""
    pending = [(ax, _PENDING.pop(ax)) for ax in fig.axes if ax in _PENDING]
    if not pending:
        return
    fig.canvas.draw()  # the layout and the data-to-display transforms are final
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    for ax, points in pending:
        _place(ax, points, renderer)


def _place(ax: Axes, points: Sequence[Point], renderer: Any) -> None:
    at: dict[tuple[float, float], list[str]] = {}
    for p in points:
        at.setdefault((p.x, p.y), []).append(p.label)
    frame = ax.get_window_extent(renderer)
    taken = _obstacles(ax, points)
    px = ax.figure.dpi / 72.0
    for (x, y), labels in sorted(at.items(), key=lambda item: (-item[0][1], item[0][0])):
        text = "\n".join(labels)
        probe = ax.text(0, 0, text, fontsize=SMALL_PT)
        size = probe.get_window_extent(renderer)
        probe.remove()
        cx, cy = ax.transData.transform((x, y))
        best: tuple[float, float, float, Bbox] | None = None
        for dist in LABEL_DISTANCES:
            for dx, dy in LABEL_DIRECTIONS:
                ox = dx * dist * px - (size.width if dx < 0 else size.width / 2 if dx == 0 else 0.0)
                oy = dy * dist * px - (size.height if dy < 0 else size.height / 2 if dy == 0 else 0.0)
                box = Bbox.from_bounds(cx + ox, cy + oy, size.width, size.height)
                cost = sum(_overlap(box, b) for b in taken) + 10 * _outside(box, frame)
                if best is None or cost < best[0]:
                    best = (cost, ox / px, oy / px, box)
            if best is not None and best[0] == 0:
                break
        assert best is not None
        _, ox, oy, box = best
        far = abs(ox) + abs(oy) > 2 * LABEL_DISTANCES[1]
        label = ax.annotate(
            text,
            (x, y),
            xytext=(ox, oy),
            textcoords="offset points",
            fontsize=SMALL_PT,
            ha="left",
            va="bottom",
            arrowprops={"arrowstyle": "-", "color": "#888888", "lw": 0.4, "shrinkB": 3} if far else None,
        )
        label.set_in_layout(False)  # placed in the final layout; must not change it
        taken.append(box)


def hbar_models(
    ax: Axes,
    labels: Sequence[str],
    values: Sequence[float | None],
    *,
    color: str,
    base: Sequence[bool],
    lo: Sequence[float | None] | None = None,
    hi: Sequence[float | None] | None = None,
    missing: str = NOT_RUN,
) -> None:
    """Horizontal bars, one row per label (first at the bottom) with interval bars; base models grey and
    hatched; a row without a value says ``missing`` (why: not run, by default)."""
    pos = np.arange(len(labels))
    heights = [0.0 if v is None else v for v in values]
    err = None if lo is None or hi is None else errors(heights, lo, hi)
    colors = [BASE_COLOR if b else color for b in base]
    bars = ax.barh(pos, heights, color=colors, xerr=err)
    for bar, is_base, value in zip(bars, base, values, strict=True):
        if is_base:
            bar.set_hatch(BASE_HATCH)
            bar.set_edgecolor("white")
        if value is None:
            ax.text(
                0.01,
                bar.get_y() + bar.get_height() / 2,
                NOT_RUN,
                va="center",
                fontsize=SMALL_PT,
                color="#666666",
            )
    ax.set_yticks(pos, list(labels))
    percent_axis(ax, "x")


def heatmap(ax: Axes, grid: pd.DataFrame, *, cbar_label: str = "pass rate") -> None:
    """A 0..1 heatmap with percentage annotations (rows: models, columns: conditions); a NaN cell was not run
    and says so (``NOT_RUN``)."""
    import seaborn as sns  # imported on first use (it imports scipy.stats: a second per figure)

    values = grid.astype(float)
    sns.heatmap(
        values,
        ax=ax,
        vmin=0.0,
        vmax=1.0,
        cmap="viridis",
        annot=values.map(lambda v: "" if np.isnan(v) else f"{v * 100:.0f}"),
        fmt="",
        annot_kws={"fontsize": SMALL_PT},
        cbar_kws={"label": cbar_label + " (%)", "format": lambda v, _p: f"{v * 100:.0f}"},
        linewidths=0.4,
        linecolor="white",
    )
    for i, j in zip(*np.nonzero(np.isnan(values.to_numpy())), strict=True):
        ax.text(j + 0.5, i + 0.5, NOT_RUN, ha="center", va="center", fontsize=SMALL_PT, color="#666666")
    ax.set_xlabel("")
    ax.set_ylabel("")
    ax.tick_params(axis="x", rotation=40)
    ax.tick_params(axis="y", rotation=0)
    for tick in ax.get_xticklabels():
        tick.set_horizontalalignment("right")
        tick.set_rotation_mode("anchor")
    ax.grid(False)


def stacked_shares(
    ax: Axes,
    shares: pd.DataFrame,
    categories: Sequence[str],
    palette: str = "Set2",
    missing: str | None = None,
) -> None:
    """Horizontal stacked bars of shares (rows: labels, first at the bottom; columns: ``categories``); a row
    without any share says ``missing`` when given."""
    colors = qualitative_colors(palette, len(categories))
    left = np.zeros(len(shares))
    pos = np.arange(len(shares))
    for cat, color in zip(categories, colors, strict=True):
        vals = shares[cat].fillna(0.0).to_numpy(dtype=float) if cat in shares else np.zeros(len(shares))
        ax.barh(pos, vals, left=left, color=color, label=cat.replace("_", " "))
        left += vals
    if missing is not None:
        for y, empty in zip(pos, shares.reindex(columns=list(categories)).isna().all(axis=1), strict=True):
            if empty:
                ax.text(0.01, float(y), missing, va="center", fontsize=SMALL_PT, color="#666666")
    ax.set_yticks(pos, list(shares.index))
    percent_axis(ax, "x")


def base_legend_handle() -> Patch:
    """Legend entry that explains the base-model style."""
    return Patch(
        facecolor=BASE_COLOR, hatch=BASE_HATCH, edgecolor="white", label="base model (floor control)"
    )


def labels_of(models: pd.DataFrame) -> list[str]:
    """Display labels of a models table (``(base)`` marks base models)."""
    return [model_label(str(m), bool(b)) for m, b in zip(models["model"], models["is_base"], strict=True)]
