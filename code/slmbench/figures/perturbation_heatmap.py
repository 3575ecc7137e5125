"""Robustness: pass rate per model under each prompt perturbation (heatmap), one panel per study."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from slmbench.figures.data import PERTURBATIONS
from slmbench.figures.variant_grid import draw_variant_grid


def draw(trials: pd.DataFrame, out: Path, **inputs: Any) -> None:
    """Draw the figure from ``trials`` into ``out``."""
    draw_variant_grid(
        trials,
        out,
        dimension="robustness",
        variants=PERTURBATIONS,
        title="Robustness to prompt perturbations",
    )
