"""Offline replay: every recorded model response re-parsed through a parser mode, without rerunning a model.

Per response it compares what the trial's own mode accepted with what the other mode would have accepted, so
the effect of the parser can be measured turn by turn. (What the model would have done next after a different
observation is not replayable; the replay counts calls, not counterfactual outcomes.)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from slmbench.harness import records as rec
from slmbench.harness.ledger import iter_records
from slmbench.harness.parser import parse_output
from slmbench.tasks.loader import load_suite
from slmbench.tools.registry import TOOL_CLASSES
from slmbench.vocab import SUITES


def _schemas(tool_names: Sequence[str]) -> dict[str, dict[str, Any]]:
    schemas: dict[str, dict[str, Any]] = {}
    for name in tool_names:
        schemas[name] = dict(TOOL_CLASSES[name].parameters)  # type: ignore[attr-defined]
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


def replay_shards(paths: list[Path], mode: rec.ParserMode) -> dict[str, Any]:
    """Replay every shard; a summary with per-model counts and every row."""
    tools_by_task = {t.id: list(t.tools) for suite in SUITES for t in load_suite(suite)}
    rows: list[dict[str, Any]] = []
    for path in paths:
        for _, record in iter_records(path):
            rows.extend(replay_record(record, mode, tools_by_task[record.task_id]))
    per_model: dict[str, Counter[str]] = {}
    for row in rows:
        counts = per_model.setdefault(row["model"], Counter())
        counts["responses"] += 1
        counts["recorded_accepted"] += row["recorded_accepted"]
        counts["replay_accepted"] += row["replay_accepted"]
        counts["gained"] += max(0, row["replay_accepted"] - row["recorded_accepted"])
        counts["lost"] += max(0, row["recorded_accepted"] - row["replay_accepted"])
    return {
        "mode": mode,
        "n_responses": len(rows),
        "per_model": {m: dict(c) for m, c in sorted(per_model.items())},
        "rows": rows,
    }
