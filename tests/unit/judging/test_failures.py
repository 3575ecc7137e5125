"""Failure classes: one class per failed trial, by a documented order; the clock-first order differs."""

import pytest

from slmbench.judging.failures import CLOCK_FIRST_ORDER, TrialFacts, classify


def facts(needs_tool=True, attempted=0, named=0, executed=0, stop="final_answer"):
    return TrialFacts(needs_tool, attempted, named, executed, stop)


@pytest.mark.parametrize(
    ("trial_facts", "default", "clock_first"),
    [
        (facts(), "no_tool_call", "no_tool_call"),
        (facts(stop="max_turns"), "no_tool_call", "clock"),
        (facts(attempted=5), "unparsed_call", "unparsed_call"),  # COD-1: triple quotes in JSON, five times
        (facts(attempted=5, stop="max_turns"), "unparsed_call", "clock"),
        (facts(attempted=3, named=3), "transport", "transport"),
        (facts(attempted=3, named=1, stop="max_turns"), "transport", "clock"),
        (facts(attempted=2, named=2, executed=2, stop="max_turns"), "clock", "clock"),
        (facts(attempted=2, named=2, executed=1, stop="context_overflow"), "clock", "clock"),
        (facts(attempted=2, named=2, executed=2), "capability", "capability"),
        # a well-formed call that ran and got a tool error (a wrong SQL column) is capability, not transport
        (facts(attempted=1, named=1, executed=1), "capability", "capability"),
        (facts(needs_tool=False), "capability", "capability"),
        (facts(needs_tool=False, stop="time_budget"), "clock", "clock"),
    ],
)
def test_each_failure_gets_exactly_the_documented_class(trial_facts, default, clock_first):
    assert classify(trial_facts) == default
    assert classify(trial_facts, CLOCK_FIRST_ORDER) == clock_first
