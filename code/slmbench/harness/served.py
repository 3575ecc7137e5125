"""What a server's own tool-call parser made of a model's raw text, against what ours reads from the same text.

A server that parses tool calls itself (llama.cpp's ``llama-server`` with ``--jinja``) returns them as
``tool_calls`` and takes them out of the content. Where it also returns the raw generated text
(``ModelResponse.server_text``), our parser reads that text, and the server's calls go through the same judgement
(the trial's tools, repaired mode), so the two readings differ only in how the calls were extracted. A reading is
every call found with a name: the accepted ones (resolved name, repaired arguments) and the refused ones (name and
arguments as sent). Per response the calls are matched: the same name and arguments (kept), then in order
(changed: the name or the arguments differ); ours left over were dropped by the server, the server's left over
were added by it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from slmbench.conditions import ProtocolConditions
from slmbench.harness import protocol as proto
from slmbench.harness.parser import parse_output
from slmbench.harness.scaffolds import get_scaffold
from slmbench.records import schema as rec
from slmbench.tools.registry import tool_class
from slmbench.vocab import ScaffoldName

Call = tuple[str, str]
"""A call as compared: its tool name and its arguments as canonical JSON."""


@dataclass(frozen=True)
class CallDiff:
    """Calls of one response (or summed over a trial's responses): how the server's reading compares with ours."""

    returned: int = 0
    """Calls the server returned as ``tool_calls``."""
    raw: int = 0
    """Calls our parser reads in the raw text."""
    kept: int = 0
    changed: int = 0
    dropped: int = 0
    added: int = 0

    def __add__(self, other: CallDiff) -> CallDiff:
        return CallDiff(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))


def trial_schemas(
    tools: Sequence[str], scaffold: ScaffoldName, conditions: Mapping[str, Any]
) -> dict[str, dict[str, Any]]:
    """The schemas a trial's parser judged calls against: its task's tools and, under the answer channel (where
    the scaffold has no answer line of its own), the ``final_answer`` tool (as ``harness.loop`` builds them)."""
    schemas: dict[str, dict[str, Any]] = {name: dict(tool_class(name).parameters) for name in tools}
    switches = ProtocolConditions.from_mapping(
        {k: v for k, v in conditions.items() if k in ProtocolConditions.names()}
    )
    own_line = switches.answer_line and bool(get_scaffold(scaffold).answer_line)
    if switches.answer_channel and not own_line:
        schemas[proto.FINAL_ANSWER_TOOL] = proto.final_answer_schema()["function"]["parameters"]
    return schemas


def read_calls(
    text: str, native_calls: list[dict[str, Any]], schemas: dict[str, dict[str, Any]], scaffold: ScaffoldName
) -> list[Call]:
    """Every call with a name that the repaired parser reads from ``text`` and ``native_calls``, in order."""
    parsed = parse_output(text, native_calls, schemas, "repaired", scaffold)
    calls = [(a.call.name, _canonical(a.arguments)) for a in parsed.accepted]
    return calls + [(r.name, _canonical(r.arguments)) for r in parsed.refusals if r.name]


def _canonical(arguments: Any) -> str:
    return json.dumps(arguments, sort_keys=True, ensure_ascii=False, default=str)


def compare(ours: list[Call], theirs: list[Call], returned: int) -> CallDiff:
    """Match our reading of the raw text with the server's calls: equal calls first, then in order."""
    left = list(theirs)
    unmatched = []
    for call in ours:
        if call in left:
            left.remove(call)
        else:
            unmatched.append(call)
    changed = min(len(unmatched), len(left))
    return CallDiff(
        returned=returned,
        raw=len(ours),
        kept=len(ours) - len(unmatched),
        changed=changed,
        dropped=len(unmatched) - changed,
        added=len(left) - changed,
    )


def response_diff(
    response: rec.ModelResponse, schemas: dict[str, dict[str, Any]], scaffold: ScaffoldName
) -> CallDiff | None:
    """One response's comparison, or None where the server returned no raw text."""
    if response.server_text is None:
        return None
    ours = read_calls(response.server_text, [], schemas, scaffold)
    theirs = read_calls("", response.native_tool_calls, schemas, scaffold)
    return compare(ours, theirs, len(response.native_tool_calls))


def trial_calls(record: rec.TrialRecord, tools: Sequence[str]) -> dict[str, int | None]:
    """A served trial's calls: those the server returned as ``tool_calls`` over every response
    (``server_calls``), and over the responses with raw text our reading of it and how the server's compares
    (``raw_calls``, ``calls_changed``, ``calls_dropped``, ``calls_added``; None without raw text)."""
    responses = [e for e in record.events if isinstance(e, rec.ModelResponse)]
    protocol = record.provenance.get("settings", {}).get("protocol", {})
    schemas = trial_schemas(tools, record.scaffold, protocol)
    diffs = [d for e in responses if (d := response_diff(e, schemas, record.scaffold)) is not None]
    total = sum(diffs, CallDiff()) if diffs else None
    return {
        "server_calls": sum(len(e.native_tool_calls) for e in responses),
        "raw_calls": total.raw if total else None,
        "calls_changed": total.changed if total else None,
        "calls_dropped": total.dropped if total else None,
        "calls_added": total.added if total else None,
    }
