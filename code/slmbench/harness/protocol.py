"""Protocol conditions: harness-side choices about how a trial talks to the model, each a named switch.

The first dataset ran with every condition off (``legacy``). Each condition is recorded in every trial and
compared with the others, never switched on silently:

- ``canonical_history``: after a call is accepted, the assistant turn in the history is the structured call
  (``tool_calls``, rendered by the model's own chat template; the raw text stays in the ledger), tool messages
  carry the tool's name, and refusals come back as tool-role errors.
- ``stuck_detection``: an identical call (same tool, same arguments) that already returned a result is not run
  again; the observation repeats the earlier result and asks for the answer (as OpenHands' stuck detector).
- ``answer_channel``: a ``final_answer`` tool in the catalogue (smolagents' convention); an answer written into a
  re-emitted call's JSON (``"result": ...``) read as the final answer; an action name used as a tool name
  resolved to its tool.
- ``closing_turn``: at ``max_turns`` without an answer, one more turn asks for the answer in plain text; a trial
  that passes only through it is marked.
- ``clean_kv``: every trial starts from an empty KV cache, so a rerun does not depend on the trial before it.
- ``stop_strings``: the scaffold's stop strings are sent with every request (ReAct: ``\nObservation:``, so the
  model cannot write the tool's result itself); without it they are declared but not sent, and the parser cuts
  a self-written observation instead. The native scaffold declares none: there the switch changes nothing.
- ``answer_line``: a scaffold with an answer line of its own (ReAct's ``Final Answer:``) takes the answer there:
  the answer channel adds no ``final_answer`` tool to its catalogue, and the closing turn asks for that line.
  The native scaffold has no answer line: there the switch changes nothing.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

# The switches are declared below the config (which checks them); re-exported beside what they do.
from slmbench.conditions import LEGACY as LEGACY
from slmbench.conditions import LEGACY_NAME as LEGACY_NAME
from slmbench.conditions import ProtocolConditions as ProtocolConditions
from slmbench.harness.calls import AcceptedCall, ParsedCall, Refusal
from slmbench.harness.lenient_json import loads_json
from slmbench.harness.repairs import repair_arguments
from slmbench.harness.schema_check import check_arguments

FINAL_ANSWER_TOOL = "final_answer"
ANSWER_IN_CALL = "answer_in_call"
ACTION_AS_TOOL = "action_as_tool"
ANSWER_KEYS = ("result", "answer", "final_answer", "output", "response")
"""Keys under which models write an answer into a call-shaped JSON object."""

CLOSING_PROMPT = "Now answer my original request in plain text, without calling a tool."
STUCK_OBSERVATION = (
    "You already called {name} with exactly these arguments; it returned: {result}\n"
    "Do not repeat the call. Use this result to answer the user's request."
)


def final_answer_schema() -> dict[str, Any]:
    """OpenAI-style schema of the ``final_answer`` tool."""
    return {
        "type": "function",
        "function": {
            "name": FINAL_ANSWER_TOOL,
            "description": "Give the final answer to the user's request and finish. Call it once, last.",
            "parameters": {
                "type": "object",
                "properties": {"answer": {"type": "string", "description": "The answer, in plain text."}},
                "required": ["answer"],
            },
        },
    }


def call_key(name: str, arguments: Any) -> str:
    """Identity of a call for stuck detection: tool name and canonical JSON of the arguments."""
    return f"{name}|{json.dumps(arguments, sort_keys=True, default=str)}"


def answer_text(value: Any) -> str:
    """A final answer's text from whatever a model put there (numbers and objects as JSON)."""
    return value if isinstance(value, str) else json.dumps(value, default=str)


def answer_in_call(text: str, executed: Mapping[str, Any]) -> str | None:
    """The answer a model wrote into a re-emitted call, or None.

    Reads JSON objects of ``text`` shaped like a call (a name and arguments) that also hold an answer key
    (``"result": 5775.5``), and only for a call identical to one that already ran (``executed``: call keys).
    """
    start = text.find("{")
    while start >= 0:
        try:
            value, end = json.JSONDecoder().raw_decode(text, start)
        except ValueError:
            try:
                value, _ = loads_json(text[start:], lenient=True)
                end = len(text)
            except ValueError:
                start = text.find("{", start + 1)
                continue
        if isinstance(value, dict):
            name = value.get("name") or value.get("tool")
            args = value.get("arguments", value.get("parameters"))
            answer = next((value[k] for k in ANSWER_KEYS if k in value and value[k] not in (None, "")), None)
            if isinstance(name, str) and answer is not None and call_key(name, args) in executed:
                return answer_text(answer)
        start = text.find("{", max(end, start + 1))
    return None


def _action_owner(action: str, tools: Mapping[str, Mapping[str, Any]]) -> tuple[str, str] | None:
    """The one tool (and its field) whose ``action``-like enum holds ``action``."""
    owners = []
    for tool, schema in tools.items():
        for field_name, prop in (schema.get("properties") or {}).items():
            if isinstance(prop, Mapping) and action in (prop.get("enum") or []):
                owners.append((tool, field_name))
    return owners[0] if len(owners) == 1 else None


def action_as_tool(refusal: Refusal, tools: Mapping[str, Mapping[str, Any]]) -> AcceptedCall | None:
    """An ``unknown_tool`` refusal whose name is an action of exactly one tool, resolved to that tool.

    ``send`` with ``{"to": ..., ...}`` becomes ``email`` with ``{"action": "send", "to": ...}`` when the
    result passes the schema check (after the usual argument repairs); otherwise None.
    """
    if refusal.code != "unknown_tool" or not isinstance(refusal.name, str):
        return None
    action = refusal.name.strip().lower()
    owner = _action_owner(action, tools)
    args = refusal.arguments if isinstance(refusal.arguments, dict) else {}
    if owner is None:
        return None
    tool, field_name = owner
    candidate = {**args, field_name: action}
    repaired, repairs = repair_arguments(tool, candidate, tools)
    if check_arguments(tool, repaired, tools, guard=True) is not None:
        return None
    call = ParsedCall(tool, refusal.arguments, refusal.raw_span, "action_name")
    return AcceptedCall(call, repaired, (ACTION_AS_TOOL, *repairs))
