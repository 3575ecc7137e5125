"""Tool calls from model output in every surface form, judged in strict or repaired mode.

``parse_output`` never raises. It finds candidate calls (backend-native calls here; in the text,
:mod:`slmbench.harness.finder`), then judges each (:mod:`slmbench.harness.acceptance`): strict mode accepts only
the exact shape the scaffold's prompt asks for (the scaffold object says which, :mod:`slmbench.harness.scaffolds`);
repaired mode accepts any recognisable call and applies the repairs of :mod:`slmbench.harness.repairs`. Every
refusal carries a stable code and a reason written to be shown to the model. Accepted calls carry the resolved
tool name; the arguments of ``ParsedCall`` are exactly as sent (native JSON-string arguments are decoded: their
wire form).
"""

from __future__ import annotations

import json
from typing import Any

from slmbench.harness import react
from slmbench.harness.acceptance import judge
from slmbench.harness.calls import AcceptedCall, Candidate, ParsedCall, ParseOutcome, Refusal
from slmbench.harness.finder import text_candidates
from slmbench.harness.lenient_json import loads_json
from slmbench.harness.scaffolds import Scaffold, get_scaffold
from slmbench.vocab import CALL_OVER_ANSWER, ParserMode, ScaffoldName

__all__ = ["AcceptedCall", "ParseOutcome", "ParsedCall", "Refusal", "parse_output"]


def _native_candidates(native_calls: list[dict[str, Any]], lenient: bool) -> list[Candidate]:
    out = []
    for call in native_calls:
        raw = json.dumps(call, default=str)
        fn = call.get("function", call) if isinstance(call, dict) else None
        if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
            out.append(Candidate(-1, -1, "native", raw, error=("missing_name", "The tool call has no name.")))
            continue
        args, fixed = fn.get("arguments", {}), False
        if isinstance(args, str):
            try:
                args, fixed = loads_json(args, lenient) if args.strip() else ({}, False)
            except ValueError as exc:
                reason = f"The arguments of {fn['name']} are not valid JSON ({exc}). Send a JSON object."
                out.append(
                    Candidate(-1, -1, "native", raw, fn["name"], args, error=("unparseable_json", reason))
                )
                continue
        out.append(Candidate(-1, -1, "native", raw, fn["name"], args, json_fixed=fixed))
    return out


def parse_output(
    text: str,
    native_calls: list[dict[str, Any]],
    tools: dict[str, dict[str, Any]],
    mode: ParserMode,
    scaffold: ScaffoldName | Scaffold,
) -> ParseOutcome:
    """Read the tool calls, refusals and final answer from one model output.

    Args:
        text: the model's text content.
        native_calls: backend-native calls in OpenAI shape (may be empty).
        tools: tool name -> JSON Schema of its parameters.
        mode: ``strict`` or ``repaired``.
        scaffold: ``native`` (tool_call tags) or ``react`` (Action lines), or the scaffold object.

    Returns:
        At least one accepted call, one refusal, or a final answer.
    """
    strict = mode == "strict"
    sc = get_scaffold(scaffold)
    text = text if isinstance(text, str) else ""
    if not text.strip() and not native_calls:
        return ParseOutcome(refusals=[Refusal("empty_output", "The reply was empty. Call a tool or answer.")])
    body = sc.readable(text, not strict)
    found = _native_candidates(native_calls, not strict) + text_candidates(body, tools, not strict, sc)
    final = react.final_answer(body, not strict)
    starts = [c.start for c in found if c.start >= 0] + ([final[0]] if final else [])
    thought = react.clean_thought(body[: min(starts)]) if starts else ""
    if found and final is not None and strict:
        reason = "The reply holds both a tool call and 'Final Answer:'. Either call one tool or answer."
        first = found[0]
        mixed = Refusal("mixed_call_and_answer", reason, first.name, first.arguments, body)
        return ParseOutcome(refusals=[mixed], thought=thought)
    outcome = ParseOutcome(thought=thought)
    for candidate in found:
        judged = judge(candidate, tools, strict, sc)
        if isinstance(judged, Refusal):
            outcome.refusals.append(judged)
        elif final is not None:
            outcome.accepted.append(
                AcceptedCall(judged.call, judged.arguments, (*judged.repairs, CALL_OVER_ANSWER))
            )
        else:
            outcome.accepted.append(judged)
    if found:
        return outcome
    if final is not None:
        return ParseOutcome(final_answer=final[1], thought=thought)
    missing = sc.missing_call(strict)
    if missing is not None:
        return ParseOutcome(refusals=[Refusal("no_action", missing, raw_span=body)])
    return ParseOutcome(final_answer=body.strip())
