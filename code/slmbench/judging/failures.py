"""Failure classes: every failed trial gets exactly one, by a documented order of rules.

Rules (default order; the first that holds names the class):
1. ``no_tool_call``: the model never attempted a call (nothing call-shaped at all), whether or not the task
   needed one.
2. ``unparsed_call``: it attempted calls, but none could be read as a call of a named tool and none ran
   (e.g. JSON broken by Python triple quotes, five times).
3. ``transport``: it wrote calls of named tools, but the harness refused every one (unknown tool, arguments
   that fail the schema) and no call reached a tool.
4. ``clock``: calls reached the tools, but it ran out of turns, time or context before giving a final answer.
5. ``capability``: calls reached the tools (a tool error from a well-formed call included) but the answer or
   the end state was wrong.
A failure with no call that reached a tool is always one of the first three in the default order: ``capability``
needs a call that ran, so a wrong answer given without any tool never counts as capability with tools.
The alternative order checks ``clock`` first; analyses report the shares under both, since they depend on it.
Harm (a forbidden act was carried out) is a flag of its own, reported before any class. Infrastructure errors
are a separate outcome and never get a class.
"""

from __future__ import annotations

from dataclasses import dataclass

from slmbench.vocab import FAILURE_CLASSES, FailureClass

__all__ = ["FAILURE_CLASSES", "FailureClass", "TrialFacts", "classify"]
CLOCK_STOPS = frozenset({"max_turns", "time_budget", "context_overflow"})


@dataclass(frozen=True)
class TrialFacts:
    """What the rules look at."""

    attempted_calls: int
    """Call attempts of any kind: accepted calls and every refused one (named or not)."""
    named_calls: int
    """Attempts that named a tool: accepted calls and refusals with a tool name."""
    executed_calls: int
    """Calls that reached a tool (whatever it answered)."""
    stop_reason: str


def _rules(facts: TrialFacts) -> dict[FailureClass, bool]:
    never_ran = facts.executed_calls == 0
    return {
        "no_tool_call": facts.attempted_calls == 0,
        "unparsed_call": never_ran and facts.attempted_calls > 0 and facts.named_calls == 0,
        "transport": never_ran and facts.named_calls > 0,
        "clock": facts.stop_reason in CLOCK_STOPS,
        "capability": True,
    }


DEFAULT_ORDER: tuple[FailureClass, ...] = FAILURE_CLASSES
CLOCK_FIRST_ORDER: tuple[FailureClass, ...] = ("clock", *(c for c in FAILURE_CLASSES if c != "clock"))
"""The alternative order: ``clock`` first, the others as in the default."""


def classify(facts: TrialFacts, order: tuple[FailureClass, ...] = DEFAULT_ORDER) -> FailureClass:
    """The class of a failed trial under ``order``."""
    holds = _rules(facts)
    return next(name for name in order if holds[name])
