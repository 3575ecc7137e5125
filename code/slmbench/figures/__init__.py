"""slmbench.figures: one module per figure, the LaTeX tables, and their command-line entry points."""

from slmbench.figures.registry import FIGURE_TOPICS, FIGURES, UnknownFigureError, draw_figure
from slmbench.figures.source import Source, values_path
from slmbench.figures.tables import TABLES, UnknownTableError, render_table

__all__ = [
    "FIGURES",
    "FIGURE_TOPICS",
    "TABLES",
    "Source",
    "UnknownFigureError",
    "UnknownTableError",
    "draw_figure",
    "render_table",
    "values_path",
]
