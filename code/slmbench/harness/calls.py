"""What the parser finds and decides: candidate calls, accepted calls, refusals and the outcome of one output."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from slmbench.vocab import RefusalCode, Surface


@dataclass(frozen=True)
class ParsedCall:
    """A call as the model wrote it: tool name, arguments exactly as sent, source text and surface form."""

    name: str
    arguments: Any
    raw_span: str
    surface: str


@dataclass(frozen=True)
class AcceptedCall:
    """A call the harness will execute, with the arguments after repairs and the repairs applied."""

    call: ParsedCall
    arguments: dict[str, Any]
    repairs: tuple[str, ...] = ()


@dataclass(frozen=True)
class Refusal:
    """A call (or output) the harness refused; ``reason`` is shown to the model as the observation.

    ``repairs`` names repairs that shaped the refusal itself (``sibling_required_guard``).
    """

    code: RefusalCode
    reason: str
    name: str | None = None
    arguments: Any = None
    raw_span: str = ""
    repairs: tuple[str, ...] = ()


@dataclass(frozen=True)
class ParseOutcome:
    """Everything read from one model output: accepted calls, refusals, final answer and reasoning text."""

    accepted: list[AcceptedCall] = field(default_factory=list)
    refusals: list[Refusal] = field(default_factory=list)
    final_answer: str | None = None
    thought: str = ""


def resolve_name(name: str, tools: Mapping[str, Any], lenient: bool) -> str | None:
    """The tool ``name`` refers to: exact, or (lenient) ignoring case, quotes, ``functions.`` and ``()``."""
    if name in tools:
        return name
    if not lenient:
        return None
    key = re.sub(r"^functions\.|\(\)$", "", name.strip().strip("`'\"*[] ")).lower().replace("-", "_")
    return next((t for t in tools if t.lower() == key), None)


@dataclass(frozen=True)
class Candidate:
    """A possible call found in the output, before judgement.

    ``issue`` (code, text) says how the shape departs from the exact one the prompt asks for; ``error``
    (code, text) is a defect that makes the call unusable in any mode (unparseable JSON, missing input).
    """

    start: int
    end: int
    surface: Surface
    raw_span: str
    name: str | None = None
    arguments: Any = None
    has_arguments: bool = True
    issue: tuple[RefusalCode, str] | None = None
    json_fixed: bool = False
    error: tuple[RefusalCode, str] | None = None
