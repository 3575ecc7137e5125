"""Failure-class shares per model under both rule orders (default and clock-first), rows by study."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from slmbench.figures.data import order_models, scored, studies_in
from slmbench.figures.plots import stacked_shares
from slmbench.figures.style import model_label, no_data, panels, save, shared_legend, study_label
from slmbench.vocab import FAILURE_CLASSES

ORDERS: dict[str, str] = {"failure_class": "default order", "failure_class_clock_first": "clock-first order"}


def shares(trials: pd.DataFrame, column: str) -> pd.DataFrame:
    """Share of each failure class among failed trials per (study, model); columns study, model, classes..."""
    df = scored(trials)
    failed = df[(df["outcome"] == "failure") & df[column].notna()]
    if failed.empty:
        return pd.DataFrame(columns=["study", "model", "params_b", "is_base", *FAILURE_CLASSES])
    counts = pd.crosstab([failed["study"], failed["model"]], failed[column])
    table = counts.div(counts.sum(axis=1), axis=0).reset_index()
    for cls in FAILURE_CLASSES:
        if cls not in table:
            table[cls] = 0.0
    info = df[["study", "model", "params_b", "is_base"]].drop_duplicates(["study", "model"])
    return order_models(table.merge(info, on=["study", "model"], how="left"))


def draw(trials: pd.DataFrame, out: Path, **inputs: Any) -> None:
    """Draw the figure from ``trials`` into ``out``."""
    tables = {col: shares(trials, col) for col in ORDERS}
    studies = studies_in(pd.concat(list(tables.values()), ignore_index=True))
    fig, axes = panels(2 * max(len(studies), 1), ncols=2, width=3.8, height=2.8)
    if not studies:
        for ax, name in zip(axes, ORDERS.values(), strict=True):
            no_data(ax, f"no classified failures ({name})")
    for i, study in enumerate(studies):
        for j, (col, name) in enumerate(ORDERS.items()):
            ax = axes[2 * i + j]
            part = tables[col][tables[col]["study"] == study]
            if part.empty:
                no_data(ax, f"no classified failures ({name})")
            else:
                labels = [
                    model_label(m, bool(b)) for m, b in zip(part["model"], part["is_base"], strict=True)
                ]
                stacked_shares(ax, part.assign(label=labels).set_index("label"), FAILURE_CLASSES)
                ax.set_xlabel("share of failed trials")
            ax.set_title(f"{study_label(study)}\n{name}")
    shared_legend(fig, axes)
    fig.suptitle("Failure classes", fontsize=9)
    save(fig, out)
