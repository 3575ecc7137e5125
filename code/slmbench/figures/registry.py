"""The figure names, the topics each reads, and how to draw one by name (PDF or PNG, and its values file)."""

from __future__ import annotations

import importlib
import logging
from collections.abc import Mapping
from pathlib import Path

logger = logging.getLogger(__name__)

_STUDIES = ("capability", "external")
"""Both studies' models (and capability numbers): every figure with a panel per study reads these."""
_RELIABILITY = ("capability", "reliability", "external")

FIGURE_TOPICS: dict[str, tuple[str, ...]] = {
    "accuracy_vs_params": _STUDIES,
    "accuracy_vs_temperature": ("capability", "temperature", "external"),
    "capability_vs_reliability": _RELIABILITY,
    "composite_reliability": _RELIABILITY,
    "composite_vs_params": _RELIABILITY,
    "latency_vs_accuracy": _STUDIES,
    "group_accuracy": _STUDIES,
    "perturbation_heatmap": _RELIABILITY,
    "fault_heatmap": _RELIABILITY,
    "reliability_bars": _RELIABILITY,
    "reliability_dimensions": _RELIABILITY,
    "radar": _RELIABILITY,
    "safety_breakdown": _RELIABILITY,
    "temperature_sensitivity": ("capability", "temperature", "external"),
    "cost_vs_reliability": _RELIABILITY,
    "failure_classes": ("capability", "failures"),
    "parser_modes": ("capability", "boundary"),
    "scaffold_comparison": ("scaffold",),
    "context_cap": ("context",),
    "protocol_ablation": ("protocol",),
    "protocol_temperature": ("protocol", "capability"),
    "eligibility_margin_vs_size": ("eligibility",),
    "eligibility_margin_vs_quant": ("eligibility",),
    "cascade_cost_accuracy": ("eligibility",),
}
"""Every figure (module ``slmbench.figures.<name>``, file ``figures/fig_<name>.pdf``) and the analysis topics it
reads: nothing else. The figure rule is generated from this: adding a figure is one module (a ``draw(src)``
that returns the matplotlib figure) and one entry here."""
FIGURES: tuple[str, ...] = tuple(FIGURE_TOPICS)


class UnknownFigureError(KeyError):
    """A figure name that has no module."""

    def __str__(self) -> str:
        return f"unknown figure {self.args[0]!r}; known figures: {', '.join(FIGURES)}"


def draw_figure(
    name: str, topics: Mapping[str, Path], out: Path, values: Path | None = None
) -> dict[str, float | int]:
    """Draw figure ``name`` from its topics (``FIGURE_TOPICS``; others in ``topics`` are not read) into ``out``
    (PDF, or PNG by suffix) and write the values it plotted to ``values`` (default: beside ``out``).

    Returns:
        The plotted values by number key.
    """
    if name not in FIGURES:
        raise UnknownFigureError(name)
    from slmbench.figures.source import Source, values_path  # pandas and matplotlib: only when drawing
    from slmbench.figures.style import save

    module = importlib.import_module(f"slmbench.figures.{name}")
    src = Source.load({t: Path(topics[t]) for t in FIGURE_TOPICS[name] if t in topics})
    missing = [t for t in FIGURE_TOPICS[name] if t not in topics]
    if missing:
        logger.warning("%s: no %s topic given; its panels say so", name, ", ".join(missing))
    save(module.draw(src), out)
    src.write_values(values or values_path(out))
    logger.info("%s: %d values plotted", name, len(src.plotted))
    return src.plotted
