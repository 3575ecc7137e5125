"""The figure names and how to draw one by name."""

from __future__ import annotations

import importlib
import logging
from pathlib import Path
from typing import Any

import pandas as pd

from slmbench.analysis.topics.common import primary_only

logger = logging.getLogger(__name__)

FIGURE_TOPICS: dict[str, tuple[str, ...]] = {
    "accuracy_vs_params": (),
    "accuracy_vs_temperature": (),
    "capability_vs_reliability": (),
    "composite_reliability": ("reliability", "external"),
    "composite_vs_params": ("reliability", "external"),
    "latency_vs_accuracy": (),
    "group_accuracy": (),
    "perturbation_heatmap": (),
    "fault_heatmap": (),
    "reliability_bars": (),
    "reliability_dimensions": (),
    "radar": (),
    "safety_breakdown": (),
    "temperature_sensitivity": (),
    "cost_vs_reliability": (),
    "failure_classes": (),
    "parser_modes": ("boundary",),
    "scaffold_comparison": ("scaffold",),
    "context_cap": ("context",),
    "eligibility_margin_vs_size": ("eligibility",),
    "eligibility_margin_vs_quant": ("eligibility",),
    "cascade_cost_accuracy": ("eligibility",),
}
"""Every figure (module ``slmbench.figures.<name>``, file ``figures/fig_<name>.pdf``) and the analysis topics it
reads. The figure rule is generated from this: adding a figure is one module and one entry here."""
FIGURES: tuple[str, ...] = tuple(FIGURE_TOPICS)


class UnknownFigureError(KeyError):
    """A figure name that has no module."""

    def __str__(self) -> str:
        return f"unknown figure {self.args[0]!r}; known figures: {', '.join(FIGURES)}"


def draw_figure(name: str, trials: pd.DataFrame, out: Path, **inputs: Any) -> None:
    """Draw figure ``name`` (module ``slmbench.figures.<name>``) from ``trials`` into ``out``.

    Figures draw each study's primary condition; the scaffold comparison reads its own topic.
    """
    if name not in FIGURES:
        raise UnknownFigureError(name)
    module = importlib.import_module(f"slmbench.figures.{name}")
    trials = primary_only(trials)
    logger.info("drawing %s from %d trials", name, len(trials))
    module.draw(trials, out, **inputs)
