"""A raw trial record as rows of the tidy tables: one trial row, and one event row per tool call or refusal."""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import asdict
from typing import Any

from slmbench.backends import run_identity
from slmbench.conditions import ProtocolConditions
from slmbench.harness.served import trial_calls
from slmbench.records import schema as rec
from slmbench.records.fingerprint import build_of
from slmbench.records.imported import imported_from
from slmbench.tasks.loader import task_index
from slmbench.tidy.columns import EVENT_TYPES, SERVED_COLUMNS
from slmbench.tidy.judge import rejudge
from slmbench.vocab import DIMENSIONS

_DIMENSIONS = set(DIMENSIONS)


def trial_row(record: rec.TrialRecord, source: str, line: int) -> dict[str, Any]:
    """One tidy row for one raw trial record, judged again from the record with today's checks. A model's
    size and kind come from the record's fingerprint; the merge replaces them by the config's."""
    end = next(e for e in reversed(record.events) if isinstance(e, rec.EndEvent))
    answer_event = next((e for e in record.events if isinstance(e, rec.FinalAnswerEvent)), None)
    scored = rejudge(record, source, line)
    responses = [e for e in record.events if isinstance(e, rec.ModelResponse)]
    settings = record.provenance.get("settings", {})
    # Null-control reruns are their own suite. Records written before the runner stored the label carry
    # suite "capability"; their shard name (provenance) and trial id identify them unambiguously.
    suite = "null_control" if record.provenance.get("shard") == "null_control" else record.suite
    return {
        "trial_id": record.trial_id,
        "study": record.study,
        "suite": suite,
        "task_id": record.task_id,
        "group": record.group,
        "dimension": record.group if record.group in _DIMENSIONS and record.suite == "reliability" else None,
        "variant": record.variant,
        "model": record.model,
        "params_b": record.fingerprint.get("params_b"),
        "is_base": not bool(record.fingerprint.get("instruct", True)),
        "temperature": record.temperature,
        "seed": record.seed,
        "repeat": record.repeat,
        "scaffold": record.scaffold,
        "parser_mode": record.parser_mode,
        "outcome": scored.outcome,
        "passed": scored.outcome == "success",
        "partial": scored.check.partial if scored.check else None,
        "failure_class": scored.failure_class,
        "failure_class_clock_first": scored.failure_class_clock_first,
        "refused": scored.refused,
        "turns": end.turns,
        "wall_s": end.wall_s,
        "prompt_tokens": sum(e.prompt_tokens for e in responses),
        "completion_tokens": sum(e.completion_tokens for e in responses),
        "n_tool_calls": sum(isinstance(e, rec.ToolCallEvent) for e in record.events),
        "n_refusals": sum(isinstance(e, rec.RefusalEvent) for e in record.events),
        "peak_rss_mb": end.peak_rss_mb,
        "answer": answer_event.text if answer_event else None,
        "source_file": source,
        "source_line": line,
        "derived_from_rate": False,
        "n_ctx": record.fingerprint.get("n_ctx"),
        "stop_reason": end.stop_reason,
        "protocol": record.protocol,
        "conditions": conditions_on(settings.get("protocol")),
        "max_turns": settings.get("max_turns"),
        "max_tokens": settings.get("max_tokens"),
        "budget_s": settings.get("budget_s"),
        "answer_channel": answer_event.channel if answer_event else None,
        "closing_answer": bool(answer_event and answer_event.channel == "closing_turn"),
        "n_stuck": sum(isinstance(e, rec.StuckEvent) for e in record.events),
        "harm": scored.harm,
        "recorded_outcome": record.outcome,
        "rejudged_by": changed_criteria(record.check, scored.check)
        if scored.outcome != record.outcome
        else None,
        "rescored": scored.rescored,
        "state_source": scored.state_source,
        "check_sha256": scored.check_sha256,
        "criteria": json.dumps(scored.check.criteria, sort_keys=True, default=str) if scored.check else None,
        "transcript_sha256": transcript_sha256(responses),
        "confidence": confidence(responses),
        "cpu": (record.fingerprint.get("machine") or {}).get("cpu"),
        "build": build_of(record.fingerprint, settings.get("serving")),
        "rerun": settings.get("rerun"),
        "perturbation": settings.get("perturbation"),
        **first_exchange(record),
        **served_calls(record),
        **asdict(run_identity(record.fingerprint, settings)),
        "imported_from": (imported_from(record) or {}).get("format"),
    }


def conditions_on(protocol: dict[str, Any] | None) -> str | None:
    """The protocol conditions a trial ran under that were on, joined by ``+`` in declaration order (empty: all
    off); missing where the record does not list its conditions (records from before they were recorded)."""
    if not protocol:
        return None
    return "+".join(ProtocolConditions.from_mapping({k: v for k, v in protocol.items() if k != "name"}).on())


def served_calls(record: rec.TrialRecord) -> dict[str, Any]:
    """The server of a serving-comparison trial and its calls against our reading of the server's raw text
    (``harness.served.trial_calls``); all missing for a trial run on its model's own backend."""
    server = (record.provenance.get("settings", {}).get("serving") or {}).get("server")
    if server is None:
        return dict.fromkeys(SERVED_COLUMNS)
    task = task_index()[record.task_id]  # judged already: the task exists
    return {"server": server, **trial_calls(record, list(task.tools))}


def first_exchange(record: rec.TrialRecord) -> dict[str, str | None]:
    """Hashes of the trial's first request (prompt and sampling options but the seed, which greedy decoding does
    not read) and of the model's first reply: trials with the same first request are a test of whether the
    same input gave the same output."""
    request = next((e for e in record.events if isinstance(e, rec.ModelRequest)), None)
    reply = next((e for e in record.events if isinstance(e, rec.ModelResponse)), None)
    options = {k: v for k, v in (request.options if request else {}).items() if k != "seed"}
    wanted = json.dumps([request.prompt_sha256, options], sort_keys=True, default=str) if request else None
    return {
        "first_request_sha256": hashlib.sha256(wanted.encode()).hexdigest()[:16] if wanted else None,
        "first_reply_sha256": transcript_sha256([reply]) if reply else None,
    }


def changed_criteria(recorded: rec.CheckResult | None, today: rec.CheckResult | None) -> str | None:
    """Which criteria judge a re-judged trial otherwise than its record did, in the check's order: ``kind`` and
    what each says now (``answered: no final answer``), joined by ``; ``; a criterion the record lacks counts."""
    before = {(c.get("kind"), i): c.get("ok") for i, c in enumerate(recorded.criteria if recorded else [])}
    changed = [
        f"{c.get('kind')}: {c.get('detail')}"
        for i, c in enumerate(today.criteria if today else [])
        if before.get((c.get("kind"), i)) != c.get("ok")
    ]
    return "; ".join(changed) or "the check's verdict (no single criterion changed)"


def confidence(responses: list[rec.ModelResponse]) -> float | None:
    """The trial's confidence: the geometric-mean probability under the model of every token it generated, over
    all its replies (``exp`` of the mean recorded log-probability); None where a reply recorded none."""
    logprobs = [lp for r in responses for lp in (r.logprobs or [])]
    if not logprobs or any(r.logprobs is None for r in responses):
        return None
    return math.exp(sum(logprobs) / len(logprobs))


def transcript_sha256(responses: list[rec.ModelResponse]) -> str:
    """Hash of everything the model wrote in a trial, in order: equal hashes mean identical transcripts."""
    digest = hashlib.sha256()
    for response in responses:
        digest.update(json.dumps([response.raw_text, response.native_tool_calls], sort_keys=True).encode())
    return digest.hexdigest()[:16]


def event_rows(record: rec.TrialRecord) -> list[dict[str, Any]]:
    """One tidy row per tool call or refusal of a trial (``seq``: its place among all the record's events)."""
    rows = []
    for seq, event in enumerate(record.events):
        if not isinstance(event, EVENT_TYPES):
            continue
        rows.append(
            {
                "trial_id": record.trial_id,
                "seq": seq,
                "type": event.type,
                "turn": event.turn,
                "name": event.name,
                "code": getattr(event, "code", None),
                "surface": getattr(event, "surface", None),
                "parser_mode": getattr(event, "parser_mode", None),
                "repairs": json.dumps(event.repairs),
                "arguments": json.dumps(event.arguments, sort_keys=True, default=str),
            }
        )
    return rows
