"""slmbench.figures: one module per figure, the LaTeX tables, and their command-line entry points.

Names are imported on first use, so that reading the registries (every Snakemake start does) loads neither
matplotlib nor pandas.
"""

import importlib
from typing import Any

_EXPORTS: dict[str, str] = {
    "FIGURES": "registry",
    "FIGURE_TOPICS": "registry",
    "UnknownFigureError": "registry",
    "draw_figure": "registry",
    "Source": "source",
    "values_path": "source",
    "TABLES": "tables",
    "UnknownTableError": "tables",
    "render_table": "tables",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(f"slmbench.figures.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module 'slmbench.figures' has no attribute {name!r}")
