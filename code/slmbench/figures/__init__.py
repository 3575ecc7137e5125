"""slmbench.figures: one module per figure, the LaTeX tables, and their command-line entry points."""

from slmbench.figures.registry import FIGURES, UnknownFigureError, draw_figure
from slmbench.figures.tables import TABLES, UnknownTableError, render_table

__all__ = ["FIGURES", "TABLES", "UnknownFigureError", "UnknownTableError", "draw_figure", "render_table"]
