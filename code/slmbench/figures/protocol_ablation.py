"""The protocol study per model: capability accuracy under legacy, full, each leave-one-out protocol and each
other limit, on the same tasks (95 % Wilson intervals; exact McNemar p against the reference condition).

Reads the ``protocol`` topic only: its ``comparisons`` table says which comparisons exist per model, and the
numbers ``proto.cmp.<comparison>.<model>.{primary,other}.acc`` (with ``.lo``/``.hi``), ``.mcnemar.p`` and
``.mcnemar.padj`` (Benjamini-Hochberg over the comparison's models) are drawn. Legacy and full come from the "full vs legacy" pairs; every other row is the condition's side of its
pairs with full, or, for a mechanism run, with its base (drawn once, before the runs against it). Every panel has
the same rows; a condition a model did not run says so. p: exact McNemar against the row's reference.
"""

from __future__ import annotations

import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from slmbench.analysis.numbers import fmt_p, slug
from slmbench.figures.plots import errors
from slmbench.figures.registry import figure
from slmbench.figures.source import Source
from slmbench.figures.style import BASE_COLOR, SMALL_PT, no_data, panels

TOPIC = "protocol"
FULL_KEY = "full"
"""The comparison of the full protocol with legacy (its primary side is legacy, its other side full)."""
REFERENCE_COLOR = "#1b6ca8"
CONDITION_COLOR = "#d1495b"


def _conditions(table: pd.DataFrame) -> list[tuple[str, str, str, str]]:
    """(label, comparison key, side, colour) of every condition any model ran, in one order for all panels:
    legacy and full (from "full vs legacy"), then each other comparison's condition; a mechanism run's base is
    drawn once before the first run against it, and a condition already drawn is named with its reference."""
    names = dict(zip(table["key"], table["comparison"], strict=True))
    families = dict(zip(table["key"], table["family"], strict=True)) if "family" in table else {}
    out: list[tuple[str, str, str, str]] = []
    if FULL_KEY in names:
        out += [("legacy", FULL_KEY, "primary", BASE_COLOR), ("full", FULL_KEY, "other", REFERENCE_COLOR)]
    for key in names:
        if key == FULL_KEY:
            continue
        condition, reference = str(names[key]).split(" vs ")
        if families.get(key) == "mechanism" and all(label != reference for label, *_ in out):
            out.append((reference, str(key), "primary", BASE_COLOR))
        drawn = any(label == condition for label, *_ in out)
        out.append(
            (f"{condition} vs {reference}" if drawn else condition, str(key), "other", CONDITION_COLOR)
        )
    return out


def _panel(ax: Axes, src: Source, conditions: list[tuple[str, str, str, str]], model: str) -> None:
    ticks: list[str] = []
    for y, (label, key, side, color) in enumerate(conditions):
        base = f"proto.cmp.{key}.{slug(model)}"
        acc = src.value(f"{base}.{side}.acc")
        if acc is None:
            ticks.append(label)
            ax.text(0.01, y, "not run", va="center", fontsize=SMALL_PT, color="#888888")
            continue
        lo, hi = src.value(f"{base}.{side}.acc.lo"), src.value(f"{base}.{side}.acc.hi")
        ax.errorbar([acc], [y], xerr=errors([acc], [lo], [hi]), fmt="o", ms=4, capsize=2, color=color)
        p = src.value(f"{base}.mcnemar.p") if side == "other" else None
        p_adj = src.value(f"{base}.mcnemar.padj") if p is not None else None
        shown = f"p={fmt_p(p)}" + ("" if p_adj is None else f", BH {fmt_p(p_adj)}") if p is not None else ""
        ticks.append(f"{label} ({shown})" if shown else label)
    ax.set_yticks(range(len(ticks)), ticks)
    ax.set_ylim(len(ticks) - 0.5, -0.5)
    ax.set_xlim(-0.02, 1.02)
    ax.xaxis.set_major_formatter(lambda v, _pos: f"{v * 100:.0f}%")
    ax.set_xlabel("accuracy (95% Wilson)")
    ax.set_title(model)


@figure(reads=("protocol",))
def draw(src: Source) -> Figure:
    """One panel per model with protocol comparisons."""
    table = src.table(TOPIC, "comparisons")
    models = [] if table.empty else [m for m in dict.fromkeys(table["model"]) if m != "pooled"]
    n_rows = 0 if table.empty else table["key"].nunique() + 1
    fig, axes = panels(len(models), ncols=2, height=0.9 + 0.28 * n_rows)
    if not models:
        no_data(axes[0], "no protocol comparison has been run")
    conditions = [] if table.empty else _conditions(table)
    for ax, model in zip(axes, models, strict=False):
        _panel(ax, src, conditions, str(model))
    fig.suptitle("Capability accuracy under each protocol (same tasks, T = 0)")
    return fig
