"""``slmbench import-external``: the published study's raw reports -> trials-schema parquet."""

from __future__ import annotations

import logging
import os
import tempfile
from pathlib import Path

import click
import pandas as pd

from slmbench.importers.karmacharya2026 import _import

logger = logging.getLogger(__name__)


def _write_parquet(df: pd.DataFrame, out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=out.parent, suffix=".parquet.tmp")
    os.close(fd)
    try:
        df.to_parquet(tmp, index=False)
        os.replace(tmp, out)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


@click.command("import-external")
@click.option("--root", type=click.Path(exists=True, file_okay=False, path_type=Path), required=True)
@click.option("--out", type=click.Path(path_type=Path), required=True, help="trials parquet")
@click.option(
    "--out-summary", type=click.Path(path_type=Path), required=True, help="published summary parquet"
)
def import_external(root: Path, out: Path, out_summary: Path) -> None:
    """Import the published Karmacharya (2026) study from ROOT into the trials schema."""
    trials, summary = _import(root)
    _write_parquet(trials, out)
    _write_parquet(summary, out_summary)
    click.echo(f"{len(trials)} trials, {len(summary)} models -> {out}, {out_summary}")
