"""The figures, each registered where it is drawn (``@figure``), the topics each reads, and how to draw one by
name (PDF or PNG, and its values file)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from slmbench.registration import Registry

logger = logging.getLogger(__name__)

figure: Registry[Callable[..., Any]] = Registry(__package__ or "", Path(__file__).parent, "figure")
"""The decorator of a figure module's ``draw(src)`` (which returns the matplotlib figure):
``@figure(reads=("capability", "external"))`` names the analysis topics it reads, and nothing else. The figure
rule is generated from these declarations (read from the source: listing the figures imports no matplotlib)."""
FIGURE_TOPICS: dict[str, tuple[str, ...]] = {
    name: tuple(declared.arguments["reads"]) for name, declared in figure.declared.items()
}
"""Every figure (module ``slmbench.figures.<name>``, file ``figures/fig_<name>.pdf``) and the topics it reads."""
FIGURES: tuple[str, ...] = tuple(FIGURE_TOPICS)


def study_figures(topics: tuple[str, ...] | set[str]) -> tuple[str, ...]:
    """The figures a study draws: those whose every topic it computes."""
    return tuple(name for name in FIGURES if set(FIGURE_TOPICS[name]) <= set(topics))


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

    draw = figure.get(name)
    src = Source.load({t: Path(topics[t]) for t in FIGURE_TOPICS[name] if t in topics})
    missing = [t for t in FIGURE_TOPICS[name] if t not in topics]
    if missing:
        logger.warning("%s: no %s topic given; its panels say so", name, ", ".join(missing))
    save(draw(src), out)
    src.write_values(values or values_path(out))
    logger.info("%s: %d values plotted", name, len(src.plotted))
    return src.plotted
