"""The audit text columns are kept dictionary-encoded through the merge, and read back as the same text."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest

from slmbench.config import load_config
from slmbench.judging.scoring import rescore_record
from slmbench.records.ledger import iter_records
from slmbench.tasks.loader import task_index
from slmbench.tidy import DICTIONARY_COLUMNS, TRIAL_COLUMNS, tidy_tables

ROOT = Path(__file__).resolve().parents[3]
COMMITTED = sorted((ROOT / "data/raw/slmbench").glob("*/capability_T0_native_repaired_p-full*.jsonl"))[:2]


@pytest.mark.skipif(len(COMMITTED) < 2, reason="needs committed protocol shards")
def test_audit_columns_are_dictionaries_that_read_back_as_each_records_text() -> None:
    table, _, _ = tidy_tables(COMMITTED, load_config(ROOT / "config.yaml"), None, ROOT)
    for name in DICTIONARY_COLUMNS:
        assert pa.types.is_dictionary(table.schema.field(name).type), name
    frame = table.to_pandas()
    line, record = next(iter(iter_records(COMMITTED[0])))
    row = frame[frame["trial_id"] == record.trial_id].iloc[0]
    scored = rescore_record(record, task_index()[record.task_id])
    assert scored.check is not None
    assert row["criteria"] == json.dumps(scored.check.criteria, sort_keys=True, default=str)
    assert row["source_file"] == str(COMMITTED[0].relative_to(ROOT)) and row["source_line"] == line
    assert row["check_sha256"] == scored.check_sha256


@pytest.mark.skipif(len(COMMITTED) < 2, reason="needs committed protocol shards")
def test_a_published_studys_text_joins_the_dictionaries(tmp_path: Path) -> None:
    ours, _, _ = tidy_tables(COMMITTED, load_config(ROOT / "config.yaml"), None, ROOT)
    theirs = ours.to_pandas()[TRIAL_COLUMNS].head(3).copy()
    theirs["trial_id"] = ["ext-1", "ext-2", "ext-3"]
    theirs["study"] = "published"
    theirs["source_file"] = "published/table.csv"
    external = tmp_path / "external.parquet"
    theirs.astype({c: object for c in theirs.select_dtypes("category")}).to_parquet(external)
    table, _, manifest = tidy_tables(COMMITTED, load_config(ROOT / "config.yaml"), external, ROOT)
    assert table.num_rows == ours.num_rows + 3 and manifest["raw_files"][-1]["n_records"] == 3
    joined = table.to_pandas().set_index("trial_id")
    assert list(joined.loc[["ext-1", "ext-2", "ext-3"], "source_file"]) == ["published/table.csv"] * 3
    assert pd.isna(joined.loc["ext-1", "criteria"])  # a published table has no verdicts per criterion
