"""``slmbench figure`` and ``slmbench table``: draw one figure or write one LaTeX table."""

from __future__ import annotations

import json
import logging
import os
import tempfile
from pathlib import Path

import click
import pandas as pd

from slmbench.figures.registry import FIGURES, UnknownFigureError, draw_figure
from slmbench.figures.tables import TABLES, UnknownTableError, render_table

logger = logging.getLogger(__name__)


@click.command("figure")
@click.argument("name")
@click.option(
    "--trials",
    "trials_path",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="trials.parquet (figures that draw only from a topic, such as the eligibility ones, need none)",
)
@click.option(
    "--analysis-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("data/processed"),
    show_default=True,
    help="Folder of the analysis topic JSON files (read when present).",
)
@click.option(
    "--topic",
    "topic_paths",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="A topic JSON the figure reads (named by its stem); overrides --analysis-dir for that topic.",
)
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), required=True)
def figure(
    name: str, trials_path: Path | None, analysis_dir: Path, topic_paths: tuple[Path, ...], out: Path
) -> None:
    """Draw figure NAME from the tidy trials table and the analysis topics into a PDF."""
    if name not in FIGURES:
        raise click.BadParameter(str(UnknownFigureError(name)), param_hint="NAME")
    topics = {p.stem: p for p in topic_paths}
    trials = pd.read_parquet(trials_path) if trials_path is not None else pd.DataFrame()
    draw_figure(name, trials, out, analysis_dir=analysis_dir, topics=topics)
    click.echo(f"wrote {out}")


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
