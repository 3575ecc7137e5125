"""Fixed figure style and byte-deterministic saving, shared by every figure module."""

from __future__ import annotations

import logging
import os
import tempfile
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

logger = logging.getLogger(__name__)
logging.getLogger("fontTools").setLevel(logging.WARNING)

STUDY_LABELS: dict[str, str] = {"slmbench": "This study", "karmacharya2026": "Karmacharya 2026 (reproduced)"}
STUDY_COLORS: dict[str, str] = {"slmbench": "#1b6ca8", "karmacharya2026": "#d1495b"}
PRINT_WIDTH = 6.5
"""Width at which the paper prints every figure (inches): ``\\figw`` in paper/main.tex, its text width (US letter,
1in margins; the PDF build checks it)."""
FIG_WIDTH = PRINT_WIDTH
"""Width of every figure in inches, whatever its number of panels: drawn at the size it is printed, so a font size
here is its size on the page, the same in every figure."""
MIN_TEXT_PT = 7.0
"""The smallest text of a figure on the printed page (points)."""
SCALE = PRINT_WIDTH / FIG_WIDTH
"""Printed size over drawn size."""
SMALL_PT = MIN_TEXT_PT / SCALE
"""The drawn size of the smallest text (tick labels, legends, annotations): ``MIN_TEXT_PT`` on the page."""
TEXT_PT = 8.0 / SCALE
"""The drawn size of axis labels and panel titles (8 pt on the page)."""
ROW_HEIGHT = 2.5
"""Default height of one row of panels (inches)."""
BASE_COLOR = "#9a9a9a"
BASE_HATCH = "///"
PDF_METADATA: dict[str, Any] = {"CreationDate": None, "ModDate": None, "Producer": "slmbench"}

_RC: dict[str, Any] = {
    "font.family": "DejaVu Sans",
    "font.size": TEXT_PT,
    "axes.titlesize": TEXT_PT,
    "axes.labelsize": TEXT_PT,
    "legend.fontsize": SMALL_PT,
    "legend.title_fontsize": SMALL_PT,
    "figure.titlesize": TEXT_PT + 0.5,
    "xtick.labelsize": SMALL_PT,
    "ytick.labelsize": SMALL_PT,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "figure.dpi": 100,
    "savefig.dpi": 300,
    "pdf.fonttype": 42,
    "svg.hashsalt": "slmbench",
    "path.simplify": True,
    "hatch.linewidth": 0.6,
}


def apply_style() -> None:
    """Reset matplotlib to defaults and apply the fixed slmbench rcParams."""
    matplotlib.rcdefaults()
    matplotlib.style.use(_RC)


def qualitative_colors(name: str, n: int) -> list[tuple[float, float, float]]:
    """The first ``n`` colours of matplotlib's qualitative colour map ``name`` ("tab10", "Set2"), repeated past its
    end (seaborn's ``color_palette(name, n)`` of these maps, without importing seaborn)."""
    colors = matplotlib.colormaps[name].colors  # type: ignore[attr-defined]
    return [tuple(colors[i % len(colors)])[:3] for i in range(n)]  # type: ignore[misc]


def study_label(study: str) -> str:
    """Human label of a study."""
    return STUDY_LABELS.get(study, study)


def study_color(study: str) -> str:
    """Colour of a study."""
    return STUDY_COLORS.get(study, "#555555")


def model_label(model: str, is_base: bool) -> str:
    """Model name as shown in figures; base (non-instruct) models carry "(base)"."""
    return f"{model} (base)" if is_base else model


def panels(
    n: int, *, ncols: int | None = None, height: float = ROW_HEIGHT, polar: bool = False
) -> tuple[Figure, list[Axes]]:
    """A figure ``FIG_WIDTH`` wide with ``n`` panels (at least one) in a grid of ``ncols`` columns (default: one
    row); ``height`` is the height of one row."""
    apply_style()
    n = max(n, 1)
    cols = min(n, ncols or n)
    rows = -(-n // cols)
    fig = plt.figure(figsize=(FIG_WIDTH, height * rows), layout="constrained")
    axes = [fig.add_subplot(rows, cols, i + 1, polar=polar) for i in range(n)]
    return fig, axes


NO_DATA = "slmbench:no-data"
"""The label of a panel that has nothing to draw (``no_data``)."""


def no_data(ax: Axes, reason: str = "no data") -> None:
    """Mark ``ax`` as a panel with nothing to draw (a condition that was not run): ``drop_empty`` leaves it out
    of the figure. Only a figure with nothing drawn at all keeps it, stating ``reason``."""
    ax.set_axis_off()
    ax.set_label(NO_DATA)
    ax.text(
        0.5, 0.5, reason, ha="center", va="center", transform=ax.transAxes, fontsize=TEXT_PT, color="#666666"
    )


def drop_empty(fig: Figure) -> None:
    """Leave the panels marked by ``no_data`` out of ``fig`` and lay the others out again on the grid they had
    (as many columns at most, the rows that are needed, the height scaled to match). Nothing changes where no
    panel, or every panel, is empty."""
    empty = [ax for ax in fig.axes if ax.get_label() == NO_DATA]
    drawn = [ax for ax in fig.axes if ax.get_label() != NO_DATA and ax.get_subplotspec() is not None]
    if not empty or not drawn:
        return
    grid = drawn[0].get_subplotspec().get_gridspec()  # type: ignore[union-attr]
    cols = min(len(drawn), grid.ncols)
    rows = -(-len(drawn) // cols)
    for ax in empty:
        ax.remove()
    fig.set_figheight(fig.get_figheight() * rows / grid.nrows)
    new = fig.add_gridspec(rows, cols)
    for i, ax in enumerate(drawn):
        ax.set_subplotspec(new[i // cols, i % cols])


def shared_legend(fig: Figure, axes: list[Axes]) -> None:
    """One legend below all panels, from the first panel that has labelled artists."""
    for ax in axes:
        handles, labels = ax.get_legend_handles_labels()
        if handles:
            fig.legend(handles, labels, loc="outside lower center", ncols=min(len(labels), 4), frameon=False)
            return


def save(fig: Figure, out: Path) -> None:
    """Write ``fig`` atomically, its empty panels left out (``drop_empty``): a vector PDF with fixed metadata (same data, same bytes), or a PNG when ``out``
    ends in ``.png`` (for looking at a figure)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    drop_empty(fig)
    fmt = "png" if out.suffix == ".png" else "pdf"
    fd, tmp = tempfile.mkstemp(dir=out.parent, prefix=f".{out.name}.", suffix=f".{fmt}")
    os.close(fd)
    try:
        fig.savefig(tmp, format=fmt, metadata=PDF_METADATA if fmt == "pdf" else {"Software": "slmbench"})
        os.chmod(tmp, 0o644)  # mkstemp creates 0600; outputs are ordinary readable files
        os.replace(tmp, out)
    finally:
        plt.close(fig)
        if os.path.exists(tmp):
            os.unlink(tmp)
    logger.info("wrote %s", out)
