"""The retry policy of slmbench.backends.retry, run by tenacity: what is retried, how often, how long it waits."""

from __future__ import annotations

import logging
from collections.abc import Callable

import pytest

from slmbench.backends.base import BackendError
from slmbench.backends.retry import RetryPolicy, TransientError, call_with_retries

RETRY_ON = (TransientError, ConnectionError)


def _script(*outcomes: BaseException | str) -> tuple[list[int], Callable[[], str]]:
    """A call that raises or returns ``outcomes`` in turn, and the list of its attempts."""
    pending = list(outcomes)
    calls: list[int] = []

    def call() -> str:
        calls.append(1)
        outcome = pending.pop(0)
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    return calls, call


def test_a_transient_error_then_success(caplog: pytest.LogCaptureFixture) -> None:
    calls, call = _script(TransientError("503 busy"), "ok")
    waits: list[float] = []
    with caplog.at_level(logging.WARNING, logger="slmbench.backends.retry"):
        result = call_with_retries(
            call, RetryPolicy(), retry_on=RETRY_ON, describe="chat m", sleep=waits.append
        )
    assert result == "ok" and len(calls) == 2 and waits == [0.5]
    assert caplog.messages == ["chat m: attempt 1/3 failed (TransientError: 503 busy); retrying in 0.50s"]


def test_a_permanent_error_is_not_retried() -> None:
    """A BackendError raised inside the call (an HTTP 4xx, a model not found) is final: one attempt, unchanged."""
    error = BackendError("chat m: 404 model not found")
    calls, call = _script(error, "never")
    waits: list[float] = []
    with pytest.raises(BackendError) as info:
        call_with_retries(call, RetryPolicy(), retry_on=RETRY_ON, describe="chat m", sleep=waits.append)
    assert info.value is error and len(calls) == 1 and waits == []


def test_one_attempt_means_no_retry() -> None:
    calls, call = _script(ConnectionError("refused"), "never")
    with pytest.raises(BackendError, match=r"gave up after 1 attempts: ConnectionError: refused"):
        call_with_retries(
            call, RetryPolicy(attempts=1), retry_on=RETRY_ON, describe="x", sleep=lambda s: None
        )
    assert len(calls) == 1


def test_every_attempt_transient_gives_up_with_the_last_error_as_cause() -> None:
    last = TransientError("502 third")
    calls, call = _script(TransientError("500 first"), ConnectionError("second"), last)
    waits: list[float] = []
    policy = RetryPolicy(attempts=3, base_delay_s=1.0, max_delay_s=1.5)
    with pytest.raises(BackendError, match="gave up after 3 attempts: TransientError: 502 third") as info:
        call_with_retries(call, policy, retry_on=RETRY_ON, describe="x", sleep=waits.append)
    assert info.value.__cause__ is last and len(calls) == 3 and waits == [1.0, 1.5]


def test_jittered_waits_stay_under_the_backoff() -> None:
    calls, call = _script(*[TransientError("busy")] * 5, "ok")
    waits: list[float] = []
    policy = RetryPolicy(attempts=6, base_delay_s=1.0, max_delay_s=4.0, jitter=True)
    assert call_with_retries(call, policy, retry_on=RETRY_ON, describe="x", sleep=waits.append) == "ok"
    assert len(waits) == 5 and all(
        0.0 <= w <= cap for w, cap in zip(waits, [1.0, 2.0, 4.0, 4.0, 4.0], strict=True)
    )
