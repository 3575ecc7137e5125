"""Robustness: pass rate per model under the original prompt and each perturbation in this study."""

from __future__ import annotations

from matplotlib.figure import Figure

from slmbench.figures.registry import figure
from slmbench.figures.source import Source
from slmbench.figures.variant_grid import draw_variant_grid


@figure(reads=("capability", "reliability"))
def draw(src: Source) -> Figure:
    """Each model's ``rel.variant.robustness.<variant>``."""
    return draw_variant_grid(src, dimension="robustness", title="Robustness to prompt perturbations")
