"""Failure classes: one class per failed trial, by a documented order; the clock-first order differs."""

import pytest

from slmbench.harness.failures import CLOCK_FIRST_ORDER, TrialFacts, classify


@pytest.mark.parametrize(
    ("facts", "default", "clock_first"),
    [
        (TrialFacts(True, 0, 0, "final_answer"), "no_tool_call", "no_tool_call"),
        (TrialFacts(True, 0, 0, "max_turns"), "no_tool_call", "clock"),
        (TrialFacts(True, 3, 0, "final_answer"), "transport", "transport"),
        (TrialFacts(True, 3, 0, "max_turns"), "transport", "clock"),
        (TrialFacts(True, 2, 2, "max_turns"), "clock", "clock"),
        (TrialFacts(True, 2, 1, "context_overflow"), "clock", "clock"),
        (TrialFacts(True, 2, 2, "final_answer"), "capability", "capability"),
        (TrialFacts(False, 0, 0, "final_answer"), "capability", "capability"),
        (TrialFacts(False, 0, 0, "time_budget"), "clock", "clock"),
    ],
)
def test_each_failure_gets_exactly_the_documented_class(facts, default, clock_first):
    assert classify(facts) == default
    assert classify(facts, CLOCK_FIRST_ORDER) == clock_first
