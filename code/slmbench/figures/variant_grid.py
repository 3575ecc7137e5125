"""Model × column heatmaps of this study: accuracy per task group, pass rate per variant."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from slmbench.figures.layout import PanelDrawer, study_figure
from slmbench.figures.plots import heatmap, labels_of
from slmbench.figures.source import Source
from slmbench.figures.studies import Study
from slmbench.vocab import FAULT_KINDS, ORIGINAL_VARIANT, REPHRASINGS

VARIANT_ORDER: tuple[str, ...] = (ORIGINAL_VARIANT, *REPHRASINGS, *(f"fault_{k}" for k in FAULT_KINDS))
"""Columns in the order the tasks define their variants (unknown ones after, by name)."""

Columns = Callable[[Study, Source], Sequence[str]]
"""The columns of a study's panel (e.g. ``Study.groups``)."""
CellKey = Callable[[Study, str, str], str]
"""The key of the cell of (column, model)."""


def grid_panel(
    columns: Columns, key: CellKey, *, header: Callable[[str], str], cbar_label: str
) -> PanelDrawer:
    """A heatmap of one number per model (rows, smallest at the top) and column; an empty cell was not run."""

    def draw(ax: Axes, src: Source, study: Study, models: pd.DataFrame) -> bool:
        cols = list(columns(study, src))
        cells = [[src.value(key(study, c, str(m))) for c in cols] for m in models["model"]]
        if not any(v is not None for row in cells for v in row):
            return False
        grid = pd.DataFrame(
            [[np.nan if v is None else v for v in row] for row in cells],
            index=labels_of(models),
            columns=[header(c) for c in cols],
        )
        heatmap(ax, grid, cbar_label=cbar_label)
        return True

    return draw


def variant_columns(dimension: str) -> Columns:
    """The variants of ``dimension`` that the study's topic reports, original first."""

    def columns(study: Study, src: Source) -> list[str]:
        rank = {v: i for i, v in enumerate(VARIANT_ORDER)}
        return sorted(study.variants(src, dimension), key=lambda v: (rank.get(v, len(rank)), v))

    return columns


def draw_variant_grid(src: Source, *, dimension: str, title: str) -> Figure:
    """Pass rate by model and variant of one reliability dimension (``rel.variant.<dimension>.<variant>.<m>``)."""
    panel = grid_panel(
        variant_columns(dimension),
        lambda study, variant, model: study.variant(dimension, variant, model),
        header=lambda v: v.removeprefix("fault_").replace("_", " "),
        cbar_label="pass rate",
    )
    return study_figure(src, panel, title=title, empty=f"no {dimension.replace('_', ' ')} trials")
