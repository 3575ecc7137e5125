"""Per-trial transcripts for the site: the raw record as written, the verdict tidy reached, the task as posed (for a
record of an imported study, as the other tool posed it).

Events go into the page as the record holds them (``model_dump``), so the viewer renders each known event
type in its own way and any other type as JSON: a new event type never breaks the site.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from slmbench.records.imported import imported_from
from slmbench.records.ledger import iter_records
from slmbench.records.schema import TrialRecord
from slmbench.site.encode import plain
from slmbench.tasks.loader import task_index
from slmbench.tasks.variants import variants

log = logging.getLogger(__name__)

VERDICT_COLUMNS = (
    "outcome",
    "passed",
    "partial",
    "failure_class",
    "failure_class_clock_first",
    "refused",
    "harm",
    "stop_reason",
    "answer_channel",
    "recorded_outcome",
    "rescored",
    "state_source",
    "check_sha256",
    "criteria",
    "primary",
    "transcript_sha256",
)
"""Columns of the tidy row shown as the trial's verdict (tidy judged the record again with today's checks)."""

_NOT_SEARCHED = {"model_request", "tool_state", "end"}
_NOT_SEARCHED_KEYS = {"type", "t", "turn", "call_id", "first_call_id", "prompt_sha256"}


@dataclass
class Shard:
    """One shard's transcripts (by trial id) and the lower-cased text searched in its messages."""

    transcripts: dict[str, dict[str, Any]] = field(default_factory=dict)
    search: dict[str, str] = field(default_factory=dict)


@cache
def _posed() -> dict[tuple[str, str], dict[str, Any]]:
    """``(task id, variant)`` -> the instruction the model saw, the tools offered and the injected faults."""
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for task in task_index().values():
        for name, instruction, faults in variants(task):
            out[(task.id, name)] = {
                "instruction": instruction,
                "tools": list(task.tools),
                "faults": [{"tool": f.tool, "kind": f.kind, "times": f.times} for f in faults],
            }
    return out


def verdict(row: dict[str, Any]) -> dict[str, Any]:
    """The verdict columns of a tidy row; ``criteria`` decoded from its JSON."""
    out = {c: plain(row.get(c)) for c in VERDICT_COLUMNS if c in row}
    if isinstance(out.get("criteria"), str):
        out["criteria"] = json.loads(out["criteria"])
    return out


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            if key not in _NOT_SEARCHED_KEYS:
                yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif value is not None and not isinstance(value, bool):
        yield str(value)


def search_text(events: list[dict[str, Any]]) -> str:
    """What a message search looks in: every text the model wrote and the harness answered, lower-cased."""
    parts: list[str] = []
    for event in events:
        if event.get("type") not in _NOT_SEARCHED:
            parts.extend(_strings(event))
    return "\n".join(parts).lower()


def posed(record: TrialRecord) -> dict[str, Any] | None:
    """The task as the model got it: from our task files, or for an imported record what the other tool posed."""
    origin = imported_from(record)
    if origin is None:
        return _posed().get((record.task_id, record.variant))
    return {"instruction": str(origin.get("input", "")), "tools": list(origin.get("tools", [])), "faults": []}


def transcript(record: TrialRecord, source: str, line: int, row: dict[str, Any]) -> dict[str, Any]:
    """Everything the trial page shows about one trial."""
    data = record.model_dump(mode="json")
    return {
        "record": data,
        "verdict": verdict(row),
        "source": {"file": source, "line": line},
        "posed": posed(record),
    }


def read_shard(path: Path, source: str, rows: dict[str, dict[str, Any]]) -> Shard:
    """Transcripts of every record in one shard, each joined with its tidy row (by trial id).

    Raises:
        KeyError: a record has no row in ``rows`` (the tidy table is older than the shard).
    """
    shard = Shard()
    for line, record in iter_records(path):
        row = rows.get(record.trial_id)
        if row is None:
            raise KeyError(
                f"{source}:{line}: trial {record.trial_id} is not in the trials table; run `slmbench tidy` again"
            )
        item = transcript(record, source, line, row)
        shard.transcripts[record.trial_id] = item
        shard.search[record.trial_id] = search_text(item["record"]["events"])
    return shard
