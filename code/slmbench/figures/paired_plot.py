"""Drawing of a paired comparison topic (``analysis.paired``): accuracy per model under both conditions, and
what the failures became. Reads the numbers ``<prefix>.model.<m>.{primary,other}.acc`` (with intervals),
``<prefix>.fail.{primary,other}.<class>`` and the topic's ``pairs`` table for the models; without them, the
panels say so.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from slmbench.analysis.numbers import fmt_p, slug
from slmbench.figures.plots import errors, labels_of, percent_axis, stacked_shares
from slmbench.figures.source import Source
from slmbench.figures.style import no_data, panels
from slmbench.vocab import FAILURE_CLASSES

ROLES: dict[str, tuple[str, float]] = {"primary": ("#1b6ca8", -0.12), "other": ("#d1495b", 0.12)}
"""Colour and vertical offset of each condition's point."""


def _label(src: Source, prefix: str, label: str, model: str) -> str:
    key = f"{prefix}.model.{slug(model)}"
    n, p = src.value(f"{key}.n.pairs"), src.value(f"{key}.mcnemar.p")
    counts = "" if n is None else f"n={n:.0f}"
    test = "" if p is None else f"p={fmt_p(p)}"
    return f"{label}\n({', '.join(x for x in (counts, test) if x)})" if counts or test else label


def _accuracy(ax: Axes, src: Source, prefix: str, pairs: pd.DataFrame, names: dict[str, str]) -> None:
    """A dumbbell per model: accuracy with Wilson intervals under both conditions on the same tasks."""
    pos = np.arange(len(pairs))
    ends: dict[str, list[float]] = {}
    tops: list[float] = []  # the upper interval ends drawn, for the axis range
    for role, (color, shift) in ROLES.items():
        keys = [f"{prefix}.model.{slug(m)}.{role}.acc" for m in pairs["model"]]
        acc = [src.value(k) for k in keys]
        at = [i for i, v in enumerate(acc) if v is not None]
        xs = [acc[i] or 0.0 for i in at]
        lo = [src.value(f"{keys[i]}.lo") for i in at]
        hi = [src.value(f"{keys[i]}.hi") for i in at]
        tops += [h for h in hi if h is not None]
        ends[role] = [np.nan if v is None else v for v in acc]
        ax.errorbar(
            xs,
            pos[at] + shift,
            xerr=errors(xs, lo, hi),
            fmt="o",
            ms=4,
            capsize=2,
            color=color,
            label=names[role],
        )
    for y, (a, b) in enumerate(zip(ends["primary"], ends["other"], strict=True)):
        ax.plot([a, b], [y - 0.12, y + 0.12], color="#999999", lw=0.8, zorder=0)
    ax.set_yticks(
        pos,
        [_label(src, prefix, lab, str(m)) for lab, m in zip(labels_of(pairs), pairs["model"], strict=True)],
    )
    percent_axis(ax, "x")
    ax.set_xlim(-0.02, min(1.03, max(tops, default=1.0) + 0.1))  # low accuracies stay readable
    ax.set_xlabel("accuracy on the same tasks (95% Wilson)")
    ax.legend(loc="lower right", frameon=False)


def _failures(ax: Axes, src: Source, prefix: str, names: dict[str, str]) -> bool:
    """Stacked failure-class shares of the failed paired trials under each condition."""
    shares = pd.DataFrame(
        {c: [src.value(f"{prefix}.fail.{r}.{slug(c)}") for r in ROLES] for c in FAILURE_CLASSES},
        index=list(ROLES),
    ).astype(float)
    if shares.isna().all().all():
        return False
    counts = [src.value(f"{prefix}.fail.{r}.{slug(FAILURE_CLASSES[0])}.n") for r in ROLES]
    shares.index = [f"{names[r]}\n({n or 0:.0f} failures)" for r, n in zip(ROLES, counts, strict=True)]
    stacked_shares(ax, shares, FAILURE_CLASSES)
    ax.set_xlabel("share of failed paired trials")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.25), ncols=2, frameon=False)
    return True


def draw_paired(src: Source, topic: str, prefix: str, title: str) -> Figure:
    """Draw the comparison of topic ``topic`` (number keys under ``prefix``)."""
    pairs = src.table(topic, "pairs")
    names = {r: src.text(f"{prefix}.{r}.name") or f"{r} condition" for r in ROLES}
    fig, (left, right) = panels(2, height=max(2.4, 1.2 + 0.45 * len(pairs)))
    if pairs.empty:
        no_data(left, "no task run under both conditions")
    else:
        _accuracy(left, src, prefix, pairs, names)
    left.set_title("Paired accuracy")
    if not _failures(right, src, prefix, names):
        no_data(right, "no failed paired trials")
    right.set_title("Failure classes")
    fig.suptitle(title)
    return fig
