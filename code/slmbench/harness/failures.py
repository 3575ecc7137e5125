"""Failure classes: every failed trial gets exactly one, by a documented order of rules.

Rules (default order; the first that holds names the class):
1. ``no_tool_call`` — the task needed a tool and the model never produced a recognisable call
   (no parsed call, and no refused call that named a tool).
2. ``transport`` — it produced calls, but they were refused or unparseable and no tool ever delivered a result.
3. ``clock`` — it ran out of turns, time or context before giving a final answer.
4. ``capability`` — the tools worked but the answer or the end state was wrong.
The alternative order checks ``clock`` first; analyses report the shares under both, since they depend on it.
Infrastructure errors are a separate outcome and never get a class.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

FailureClass = Literal["no_tool_call", "transport", "clock", "capability"]
CLOCK_STOPS = frozenset({"max_turns", "time_budget", "context_overflow"})


@dataclass(frozen=True)
class TrialFacts:
    """What the rules look at."""

    needs_tool: bool
    recognised_calls: int
    delivered_results: int
    stop_reason: str


def _rules(facts: TrialFacts) -> dict[FailureClass, bool]:
    return {
        "no_tool_call": facts.needs_tool and facts.recognised_calls == 0,
        "transport": facts.recognised_calls > 0 and facts.delivered_results == 0 and facts.needs_tool,
        "clock": facts.stop_reason in CLOCK_STOPS,
        "capability": True,
    }


DEFAULT_ORDER: tuple[FailureClass, ...] = ("no_tool_call", "transport", "clock", "capability")
CLOCK_FIRST_ORDER: tuple[FailureClass, ...] = ("clock", "no_tool_call", "transport", "capability")


def classify(facts: TrialFacts, order: tuple[FailureClass, ...] = DEFAULT_ORDER) -> FailureClass:
    """The class of a failed trial under ``order``."""
    holds = _rules(facts)
    return next(name for name in order if holds[name])
