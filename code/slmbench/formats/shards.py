"""Our raw shards as the exporters read them: each file's shard key and its records, in file order."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from slmbench.records.hashing import sha256_file
from slmbench.records.ledger import iter_records
from slmbench.records.schema import TrialRecord
from slmbench.run.key import ShardKey
from slmbench.tidy import raw_shards

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Shard:
    """One shard file of our study: where it is, its key (model, suite, condition) and its records."""

    path: Path
    key: ShardKey
    records: tuple[TrialRecord, ...]
    sha256: str

    @property
    def study(self) -> str:
        """The study the shard's trials belong to (the folder above its model's)."""
        return self.path.parent.parent.name


def read_shard(path: Path) -> Shard | None:
    """The shard at ``path``, or None when its name is not a shard name of a run (an imported study's file).

    Raises:
        RawRecordError: A bad line (``file:line``).
    """
    try:
        key = ShardKey.from_stem(path.parent.name, path.stem)
    except ValueError:
        log.info("%s: not a shard of a run (an imported study's file?): left out", path)
        return None
    records = tuple(record for _, record in iter_records(path))
    return Shard(path=path, key=key, records=records, sha256=sha256_file(path))


def read_shards(raw: Path) -> list[Shard]:
    """Every shard of a run under ``raw`` (a study's folder or ``data/raw``), sorted by path."""
    shards = [read_shard(path) for path in (raw_shards(raw) if raw.is_dir() else [raw])]
    return [shard for shard in shards if shard is not None and shard.records]
