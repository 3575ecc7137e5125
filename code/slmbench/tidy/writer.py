"""Writing the tidy tables and the manifest atomically (temp file, then rename)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

ROW_GROUP = 131_072
"""Rows per Parquet row group of the tidy tables: every topic reads them, and a reader decodes row groups in
parallel (one group of a million rows decoded on one core only)."""


def write_parquet(frame: pd.DataFrame | pa.Table, path: Path) -> None:
    """``frame`` as ``path`` in row groups of ``ROW_GROUP`` rows (its folder made if missing)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.parquet")
    table = frame if isinstance(frame, pa.Table) else pa.Table.from_pandas(frame, preserve_index=False)
    pq.write_table(table, tmp, row_group_size=ROW_GROUP)
    tmp.replace(path)


def write_manifest(manifest: dict[str, Any], path: Path) -> None:
    """The manifest of raw inputs as indented JSON with sorted keys."""
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(manifest, indent=1, sort_keys=True))
    tmp.replace(path)
