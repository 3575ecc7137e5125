"""The same tasks in two scaffolds: paired accuracy per model, and what the failures became (topic ``scaffold``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from slmbench.figures.paired_plot import draw_paired


def draw(trials: pd.DataFrame, out: Path, **inputs: Any) -> None:
    """Draw the figure from the ``scaffold`` topic into ``out``."""
    draw_paired(out, inputs, "scaffold", "Scaffold comparison")
