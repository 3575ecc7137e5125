"""Raw shards (and a published study's trials) → the trials table, the events table and the manifest.

The shards are the study's: those of its configured models under its own raw folder (``study_shards``; what
else lies there is left out, counted in the log). Each shard is validated and judged on its own
(``shard_tables``: nothing in it depends on the config), in parallel and kept per shard when a cache folder is
given (``slmbench.records.shard_cache``); the merge then adds what the config decides
(``slmbench.tidy.configured``), checks that no trial id appears twice, and sorts.
"""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass
from operator import itemgetter
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from slmbench.config import StudyConfig
from slmbench.judging.scoring import CHECKS_VERSION
from slmbench.records.hashing import sha256_file, source_sha256
from slmbench.records.ledger import RawRecordError, iter_records
from slmbench.records.shard_cache import Frames, ShardCache, concat, concat_arrow, map_shards
from slmbench.tidy.arrow import dictionary_encoded, merged_table
from slmbench.tidy.columns import EVENT_COLUMNS, RECORD_COLUMNS, TRIAL_COLUMNS
from slmbench.tidy.configured import with_config
from slmbench.tidy.rows import event_rows, trial_row
from slmbench.vocab import ELIGIBILITY_RAW, STUDY_ID

logger = logging.getLogger(__name__)


class NoTrialsError(ValueError):
    """No trial is recorded: there is nothing to tabulate."""


def no_trials_message(raw_dir: Path, config_path: str) -> str:
    """The one-line error of a study with no recorded trials: what is missing and which command records it."""
    return (
        f"no trials are recorded under {raw_dir} for the models of {config_path}: record them first with "
        "`snakemake trials --cores 2` (or one shard with `slmbench run`), then build the tables or the paper"
    )


def raw_shards(raw_dir: Path) -> list[Path]:
    """Every trial shard under the raw directory, sorted (the eligibility study's runs, in their own folder and
    format, are not trial records)."""
    return sorted(p for p in raw_dir.rglob("*.jsonl") if p.relative_to(raw_dir).parts[0] != ELIGIBILITY_RAW)


@dataclass(frozen=True)
class StudyShards:
    """The raw trial shards of a study, and the shard files under its raw folder that are not its own."""

    kept: list[Path]
    """``<raw>/<study id>/<model>/<shard>.jsonl`` of each configured model, sorted."""
    left_out: dict[str, int]
    """Shard files left out, by ``<study id>/<model>`` folder (``other`` for any other place)."""

    def log_left_out(self, raw_dir: Path) -> None:
        """Log how many shard files were left out, and of which folders (nothing when none was)."""
        if self.left_out:
            folders = ", ".join(f"{folder} ({n})" for folder, n in sorted(self.left_out.items()))
            logger.info(
                "left out %d shard file(s) under %s that hold no trials of this study's models: %s",
                sum(self.left_out.values()),
                raw_dir,
                folders,
            )


def study_shards(raw_dir: Path, config: StudyConfig) -> StudyShards:
    """The trial shards of the models ``config`` names under ``raw_dir`` (records of a model no longer configured,
    or of another study, never enter its tables)."""
    kept: list[Path] = []
    left_out: Counter[str] = Counter()
    for path in raw_shards(raw_dir):
        parts = path.relative_to(raw_dir).parts
        if len(parts) == 3 and parts[0] == STUDY_ID and parts[1] in config.models:
            kept.append(path)
        else:
            left_out["/".join(parts[:2]) if len(parts) == 3 else "other"] += 1
    return StudyShards(kept, dict(left_out))


def shard_tables(path: Path, source: str) -> Frames:
    """One shard's trial rows, event rows and its manifest entry (``meta``: path, sha256, records).

    Raises:
        RawRecordError: A bad line, a trial twice in the shard, or a trial its checks cannot judge.
    """
    columns = [*TRIAL_COLUMNS, *RECORD_COLUMNS]
    trial_values, event_values = itemgetter(*columns), itemgetter(*EVENT_COLUMNS)
    trials: list[tuple[Any, ...]] = []
    events: list[tuple[Any, ...]] = []
    for line, record in iter_records(path):
        trials.append(trial_values(trial_row(record, source, line)))
        events.extend(map(event_values, event_rows(record)))
    events.sort(key=itemgetter(0, 1))  # by trial id and place: whatever order the trials finished in
    meta = pd.DataFrame([{"path": source, "sha256": sha256_file(path), "n_records": len(trials)}])
    return {
        "trials": dictionary_encoded(
            pa.Table.from_pandas(pd.DataFrame(trials, columns=columns), preserve_index=False)
        ),
        "events": pd.DataFrame(events, columns=EVENT_COLUMNS),
        "meta": meta,
    }


def _no_duplicates(table: pa.Table) -> None:
    """Raises RawRecordError naming both places of a trial id that two shards hold (counted in Arrow; the
    places are looked up only when there is one)."""
    if pc.count_distinct(table.column("trial_id"), mode="all").as_py() == table.num_rows:
        return
    frame = table.select(["trial_id", "source_file", "source_line"]).to_pandas()
    twice = frame["trial_id"].duplicated(keep=False)
    if twice.any():
        rows = frame.loc[twice, ["trial_id", "source_file", "source_line"]].sort_values(
            ["trial_id", "source_file"]
        )
        first, second = rows.iloc[0], rows.iloc[1]
        raise RawRecordError(
            f"{second['source_file']}:{second['source_line']}: trial {second['trial_id']} also in "
            f"{first['source_file']}:{first['source_line']}"
        )


def tidy_tables(
    shards: list[Path],
    config: StudyConfig,
    external: Path | None,
    root: Path,
    cache_dir: Path | None = None,
    jobs: int = 1,
) -> tuple[pa.Table, pd.DataFrame, dict[str, Any]]:
    """The trials table (Arrow: ``.to_pandas()`` reads as ``trials.parquet`` does), the event table and the
    manifest of raw inputs (shards derived in up to ``jobs`` processes, and kept under ``cache_dir`` when
    given)."""
    named = [(p, str(p.relative_to(root)) if p.is_relative_to(root) else str(p)) for p in shards]
    parts = map_shards(
        named, shard_tables, ("trials", "events", "meta"), ShardCache.at(cache_dir, "tidy"), jobs
    )
    ours = concat_arrow(parts, "trials", [*TRIAL_COLUMNS, *RECORD_COLUMNS])
    event_frame = concat(parts, "events", EVENT_COLUMNS)
    manifest_files = [row for p in parts for row in p["meta"].to_pylist()]
    del parts
    if ours.num_rows == 0:
        raise NoTrialsError(f"no trials are recorded ({len(shards)} shard files)")
    _no_duplicates(ours)
    ours = with_config(ours, config)
    ext = None
    if external is not None:
        ext = pd.read_parquet(external)
        missing = set(TRIAL_COLUMNS) - set(ext.columns)
        if missing:
            raise ValueError(f"{external}: missing columns {sorted(missing)}")
        manifest_files.append({"path": str(external), "sha256": sha256_file(external), "n_records": len(ext)})
        ext = ext[TRIAL_COLUMNS].assign(primary=True)  # a published study has one condition
    table = merged_table(ours, ext, jobs)
    manifest = {
        "raw_files": manifest_files,
        "source_sha256": source_sha256(),
        "checks_version": CHECKS_VERSION,
    }
    return table, event_frame, manifest
