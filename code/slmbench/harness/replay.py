"""Offline replay: every recorded model response re-parsed through a parser mode, without rerunning a model.

Per response it compares what the trial's own mode accepted with what the other mode would have accepted, so
the effect of the parser can be measured turn by turn. (What the model would have done next after a different
observation is not replayable; the replay counts calls, not counterfactual outcomes.)
"""

from __future__ import annotations

import functools
import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from slmbench.harness.parser import parse_output
from slmbench.records import schema as rec
from slmbench.records.ledger import iter_records
from slmbench.records.shard_cache import ShardCache, concat, map_shards
from slmbench.tasks.loader import load_suite
from slmbench.tools.registry import tool_class
from slmbench.vocab import SUITES


def _schemas(tool_names: Sequence[str]) -> dict[str, dict[str, Any]]:
    schemas: dict[str, dict[str, Any]] = {}
    for name in tool_names:
        schemas[name] = dict(tool_class(name).parameters)
    return schemas


def replay_record(
    record: rec.TrialRecord, mode: rec.ParserMode, tools: Sequence[str]
) -> list[dict[str, Any]]:
    """One row per model response: calls accepted and refused in the recorded mode and in ``mode``."""
    schemas = _schemas(tools)
    recorded_calls = Counter(e.turn for e in record.events if isinstance(e, rec.ToolCallEvent))
    recorded_refusals = Counter(e.turn for e in record.events if isinstance(e, rec.RefusalEvent))
    rows = []
    for event in record.events:
        if not isinstance(event, rec.ModelResponse):
            continue
        parsed = parse_output(event.raw_text, event.native_tool_calls, schemas, mode, record.scaffold)
        rows.append(
            {
                "trial_id": record.trial_id,
                "model": record.model,
                "turn": event.turn,
                "recorded_mode": record.parser_mode,
                "replay_mode": mode,
                "recorded_accepted": recorded_calls[event.turn],
                "recorded_refused": recorded_refusals[event.turn],
                "replay_accepted": len(parsed.accepted),
                "replay_refused": len(parsed.refusals),
                "replay_codes": sorted({r.code for r in parsed.refusals}),
                "replay_repairs": sorted({r for a in parsed.accepted for r in a.repairs}),
            }
        )
    return rows


REPLAY_COLUMNS = [
    "trial_id", "model", "turn", "recorded_mode", "replay_mode", "recorded_accepted", "recorded_refused",
    "replay_accepted", "replay_refused", "replay_codes", "replay_repairs",
]  # fmt: skip


@functools.cache
def _tools_by_task() -> dict[str, list[str]]:
    """Each task's tool names (the suites are read once per process)."""
    return {t.id: list(t.tools) for suite in SUITES for t in load_suite(suite)}


def replay_shard(path: Path, name: str, mode: rec.ParserMode) -> dict[str, pd.DataFrame]:
    """Every response of one shard replayed (``rows``; codes and repairs as JSON lists)."""
    tools_by_task = _tools_by_task()
    rows: list[dict[str, Any]] = []
    for _, record in iter_records(path):
        rows.extend(replay_record(record, mode, tools_by_task[record.task_id]))
    frame = pd.DataFrame(rows, columns=REPLAY_COLUMNS)
    for column in ("replay_codes", "replay_repairs"):
        frame[column] = frame[column].map(json.dumps)
    return {"rows": frame}


def replay_shards(
    paths: list[Path], mode: rec.ParserMode, cache_dir: Path | None = None, jobs: int = 1
) -> pd.DataFrame:
    """Every response of every shard replayed in ``mode``, one row each, in shard order (shards derived in
    up to ``jobs`` processes and kept under ``cache_dir`` when given)."""
    named = [(p, str(p)) for p in paths]
    build = functools.partial(replay_shard, mode=mode)
    parts = map_shards(named, build, ("rows",), ShardCache.at(cache_dir, f"replay-{mode}"), jobs)
    return concat(parts, "rows", REPLAY_COLUMNS)
