"""Failure classes: one class per failed trial, by a documented order; the clock-first order differs."""

import pytest

from slmbench.judging.failures import CLOCK_FIRST_ORDER, TrialFacts, classify


def facts(attempted=0, named=0, executed=0, stop="final_answer"):
    return TrialFacts(attempted, named, executed, stop)


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
    ],
)
def test_each_failure_gets_exactly_the_documented_class(trial_facts, default, clock_first):
    assert classify(trial_facts) == default
    assert classify(trial_facts, CLOCK_FIRST_ORDER) == clock_first


@pytest.mark.parametrize("attempted", [0, 1, 3])
@pytest.mark.parametrize("stop", ["final_answer", "max_turns"])
def test_a_failure_without_an_accepted_call_is_never_capability(attempted, stop):
    """A task that needs no tool (a refusal task) failed with a wrong answer and no call that ran: the class says
    what happened with the calls, never that tools ran and the answer was wrong."""
    assert classify(facts(attempted=attempted, named=attempted, stop=stop)) != "capability"
