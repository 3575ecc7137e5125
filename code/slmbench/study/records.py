"""Bringing the records of one study into another: a model's recorded shards are copied from the other study's
folder into this one's, so this study reads them as its own (nothing outside a study's folder enters its
analysis) and its runs skip the shards already there.

A model is brought over only when both studies configure it alike (the same entry: backend, weights or server,
and every other setting), so the records are of the model this study names; a shard this study already has is
never overwritten.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from slmbench.config import StudyConfig, load_config
from slmbench.vocab import STUDY_ID

RAW = Path("data/raw") / STUDY_ID
"""Where a study folder keeps its trial records, one folder per model."""


class ImportRecordsError(ValueError):
    """The records cannot be brought over: the model is not configured alike, or a shard is here already."""


@dataclass(frozen=True)
class Imported:
    """The shards copied for one model, and those this study had already (left as they were)."""

    model: str
    copied: tuple[str, ...]
    kept: tuple[str, ...]


def _alike(model: str, here: StudyConfig, there: StudyConfig, source: Path) -> None:
    """Raise unless both studies configure ``model`` with the same entry."""
    if model not in here.models:
        raise ImportRecordsError(f"{model}: not a model of this study: add its entry to config.yaml first")
    if model not in there.models:
        raise ImportRecordsError(f"{model}: not a model of the study in {source}")
    mine, theirs = here.models[model].model_dump(), there.models[model].model_dump()
    differ = sorted(k for k in mine.keys() | theirs.keys() if mine.get(k) != theirs.get(k))
    if differ:
        field = differ[0]
        raise ImportRecordsError(
            f"{model}: models.{model}.{field} is {mine.get(field)!r} here and {theirs.get(field)!r} in {source}:"
            " its records were made by another configuration (give the model another name, or the same entry)"
        )


def import_records(source: Path, models: list[str], folder: Path = Path(".")) -> list[Imported]:
    """Copy the recorded shards of ``models`` (default: every model both studies configure) from the study in
    ``source`` into the study in ``folder``.

    Raises:
        ImportRecordsError: A model is not configured alike in both, or no shard of it is recorded there.
        ConfigError: A config cannot be read.
    """
    here, there = load_config(folder / "config.yaml"), load_config(source / "config.yaml")
    chosen = models or [m for m in there.models if m in here.models]
    if not chosen:
        raise ImportRecordsError(f"the studies in {folder} and {source} configure no model alike: name one")
    out = []
    for model in chosen:
        _alike(model, here, there, source)
        shards = sorted((source / RAW / model).glob("*.jsonl"))
        if not shards:
            raise ImportRecordsError(f"{model}: no shard is recorded in {source / RAW / model}")
        target = folder / RAW / model
        target.mkdir(parents=True, exist_ok=True)
        copied, kept = [], []
        for shard in shards:
            if (target / shard.name).exists():
                kept.append(shard.name)
            else:
                shutil.copy2(shard, target / shard.name)
                copied.append(shard.name)
        out.append(Imported(model, tuple(copied), tuple(kept)))
    return out
