"""Fault tolerance: pass rate per model without a fault and under each injected fault in this study."""

from __future__ import annotations

from matplotlib.figure import Figure

from slmbench.figures.registry import figure
from slmbench.figures.source import Source
from slmbench.figures.variant_grid import draw_variant_grid


@figure(reads=("capability", "reliability"))
def draw(src: Source) -> Figure:
    """Each model's ``rel.variant.fault-tolerance.<variant>``."""
    return draw_variant_grid(src, dimension="fault_tolerance", title="Tolerance of tool faults")
