"""Drawing of a paired comparison topic (``analysis.paired``): accuracy per model under both conditions, and
what the failures became. Reads the topic's tables ``pairs`` and ``failure_classes``; without them, the panels
say so.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from slmbench.figures.data import topic_frame
from slmbench.figures.plots import percent_axis, stacked_shares
from slmbench.figures.style import model_label, no_data, panels, save
from slmbench.vocab import FAILURE_CLASSES

_COLORS = {"primary": "#1b6ca8", "other": "#d1495b"}


def _names(failures: pd.DataFrame | None) -> dict[str, str]:
    """Condition name of each role, from the failure-class table (defaults when absent)."""
    names = {"primary": "primary condition", "other": "other condition"}
    if failures is not None and not failures.empty:
        found = failures.drop_duplicates("role").set_index("role")["condition"]
        names.update({str(role): str(name) for role, name in found.items()})
    return names


def _finite(value: Any) -> bool:
    """A number that is not None or NaN (topic JSON writes an undefined p as null)."""
    return value is not None and bool(np.isfinite(float(value)))


def _accuracy(ax: Any, pairs: pd.DataFrame, names: dict[str, str]) -> None:
    """A dumbbell per model: accuracy with Wilson intervals under both conditions on the same tasks."""
    pos = np.arange(len(pairs))
    for role, shift in (("primary", -0.12), ("other", 0.12)):
        acc = pairs[f"{role}_acc"].to_numpy(dtype=float)
        err = np.vstack(
            [acc - pairs[f"{role}_lo"].to_numpy(float), pairs[f"{role}_hi"].to_numpy(float) - acc]
        )
        ax.errorbar(
            acc, pos + shift, xerr=err, fmt="o", ms=4, capsize=2, color=_COLORS[role], label=names[role]
        )
    for y, (a, b) in enumerate(zip(pairs["primary_acc"], pairs["other_acc"], strict=True)):
        ax.plot([a, b], [y - 0.12, y + 0.12], color="#999999", lw=0.8, zorder=0)
    labels = [
        f"{model_label(m, bool(base))}\n(n={n}" + (f", p={p:.2g})" if _finite(p) else ")")
        for m, base, n, p in zip(pairs["model"], pairs["is_base"], pairs["n"], pairs["p"], strict=True)
    ]
    ax.set_yticks(pos, labels)
    top = float(np.nanmax(pairs[["primary_hi", "other_hi"]].to_numpy(float), initial=0.0))
    percent_axis(ax, "x")
    ax.set_xlim(-0.02, min(1.03, top + 0.1))  # low accuracies stay readable
    ax.set_xlabel("accuracy on the same tasks (95% Wilson)")
    ax.legend(loc="lower right", frameon=False, fontsize=7)


def draw_paired(out: Path, inputs: dict[str, Any], topic: str, title: str) -> None:
    """Draw the comparison of topic ``topic`` into ``out``."""
    pairs = topic_frame(inputs, topic, "pairs")
    failures = topic_frame(inputs, topic, "failure_classes")
    names = _names(failures)
    n_rows = 0 if pairs is None else len(pairs)
    fig, axes = panels(2, ncols=2, width=3.8, height=max(2.4, 1.2 + 0.45 * n_rows))
    left, right = axes
    if pairs is None or pairs.empty:
        no_data(left, "no task run under both conditions")
    else:
        _accuracy(left, pairs, names)
    left.set_title("Paired accuracy")
    if failures is None or failures.empty or failures["n"].sum() == 0:
        no_data(right, "no failed paired trials")
    else:
        wide = failures.pivot_table(index="role", columns="class", values="share", aggfunc="first")
        wide = wide.reindex(index=["primary", "other"]).fillna(0.0)
        counts = failures.drop_duplicates("role").set_index("role")["n"]
        wide.index = [f"{names[r]}\n({int(counts.get(r, 0))} failures)" for r in wide.index]
        stacked_shares(right, wide, FAILURE_CLASSES)
        right.set_xlabel("share of failed paired trials")
        right.legend(loc="upper center", bbox_to_anchor=(0.5, -0.25), ncols=2, frameon=False, fontsize=7)
    right.set_title("Failure classes")
    fig.suptitle(title, fontsize=9)
    save(fig, out)
