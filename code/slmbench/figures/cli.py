"""``slmbench figure`` and ``slmbench table``: draw one figure or write one LaTeX table."""

from __future__ import annotations

import json
import logging
import os
import tempfile
from pathlib import Path

import click

from slmbench.figures.registry import FIGURE_TOPICS, FIGURES, UnknownFigureError, draw_figure
from slmbench.figures.source import values_path
from slmbench.figures.tables import TABLES, UnknownTableError, render_table

logger = logging.getLogger(__name__)


@click.command("figure")
@click.argument("name")
@click.option(
    "--topic",
    "topic_paths",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="A topic JSON the figure reads (named by its stem); repeat for each.",
)
@click.option(
    "--analysis-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("data/processed"),
    show_default=True,
    help="Where the figure's other topics are read from (<topic>.json), when present.",
)
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), required=True, help="PDF (or .png)")
@click.option(
    "--values",
    "values_out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="The plotted values by number key (default: <out stem>.values.json beside the figure).",
)
def figure(
    name: str, topic_paths: tuple[Path, ...], analysis_dir: Path, out: Path, values_out: Path | None
) -> None:
    """Draw figure NAME from the analysis topics it reads into a PDF, and write the values it plotted."""
    if name not in FIGURES:
        raise click.BadParameter(str(UnknownFigureError(name)), param_hint="NAME")
    topics = {t: analysis_dir / f"{t}.json" for t in FIGURE_TOPICS[name]}
    topics.update({p.stem: p for p in topic_paths})
    values = values_out or values_path(out)
    plotted = draw_figure(name, topics, out, values)
    click.echo(f"wrote {out}, {values} ({len(plotted)} values)")


@click.command("table")
@click.argument("name")
@click.option(
    "--analysis",
    "analysis_path",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    required=True,
    help="The topic JSON the table reads.",
)
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), required=True)
def table(name: str, analysis_path: Path, out: Path) -> None:
    """Write LaTeX table NAME (booktabs) from an analysis topic JSON."""
    if name not in TABLES:
        raise click.BadParameter(str(UnknownTableError(name)), param_hint="NAME")
    text = render_table(name, json.loads(analysis_path.read_text(encoding="utf-8")))
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=out.parent, prefix=f".{out.name}.")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.chmod(tmp, 0o644)  # mkstemp creates 0600; outputs are ordinary readable files
    os.replace(tmp, out)
    click.echo(f"wrote {out}")
