"""Bounded retries with exponential backoff for calls to a model server, run by ``tenacity``.

The policy (how many attempts, how long to wait) is this module's :class:`RetryPolicy`; which errors are
transient is the caller's (``retry_on``). ``tenacity`` runs the attempts: it stops after the last one, waits the
policy's delay between them, logs each retry, and lets any other error through unchanged.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import tenacity

from slmbench.backends.base import BackendError

logger = logging.getLogger(__name__)

T = TypeVar("T")


class TransientError(Exception):
    """A failure worth retrying that has no exception type of its own (e.g. an HTTP 5xx answer)."""


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently to retry a failing call.

    Attributes:
        attempts: Total tries, the first included (1 = no retry).
        base_delay_s: Wait before the second try; doubles before each later one.
        max_delay_s: Upper bound on any single wait.
        jitter: Draw each wait uniformly from ``[0, delay]`` ("full jitter") instead of waiting ``delay``.
    """

    attempts: int = 3
    base_delay_s: float = 0.5
    max_delay_s: float = 8.0
    jitter: bool = False

    def __post_init__(self) -> None:
        if self.attempts < 1:
            raise ValueError(f"RetryPolicy.attempts must be >= 1, got {self.attempts}")
        if self.base_delay_s < 0 or self.max_delay_s < 0:
            raise ValueError("RetryPolicy delays must be >= 0")

    def delay(self, retry: int, rng: random.Random | None = None) -> float:
        """Seconds to wait before retry number ``retry`` (1 = the wait after the first failure)."""
        delay = min(self.max_delay_s, self.base_delay_s * 2 ** (retry - 1))
        if self.jitter:
            delay = (rng or random).uniform(0.0, delay)
        return delay

    def retrying(
        self,
        retry_on: tuple[type[BaseException], ...],
        describe: str,
        sleep: Callable[[float], None] = time.sleep,
    ) -> tenacity.Retrying:
        """The ``tenacity`` controller of this policy: ``retry_on`` errors retried, the rest raised at once."""

        def log_retry(state: tenacity.RetryCallState) -> None:
            exc = state.outcome.exception() if state.outcome is not None else None
            wait = state.next_action.sleep if state.next_action is not None else 0.0
            logger.warning(
                "%s: attempt %d/%d failed (%s: %s); retrying in %.2fs",
                describe,
                state.attempt_number,
                self.attempts,
                type(exc).__name__,
                exc,
                wait,
            )

        return tenacity.Retrying(
            stop=tenacity.stop_after_attempt(self.attempts),
            wait=lambda state: self.delay(state.attempt_number),
            retry=tenacity.retry_if_exception_type(retry_on),
            before_sleep=log_retry,
            sleep=sleep,
            reraise=False,
        )


def call_with_retries(
    fn: Callable[[], T],
    policy: RetryPolicy,
    *,
    retry_on: tuple[type[BaseException], ...],
    describe: str,
    sleep: Callable[[float], None] = time.sleep,
) -> T:
    """Call ``fn`` until it succeeds, retrying only on ``retry_on`` errors, with exponential backoff.

    Any other exception propagates at once, unchanged.

    Args:
        fn: The call, without arguments.
        policy: Attempts and delays.
        retry_on: Exception types that count as transient.
        describe: What the call is, for log lines and the final error (e.g. ``"ollama chat llama3.2"``).
        sleep: Waiting function (replaced in tests).

    Returns:
        What ``fn`` returned.

    Raises:
        BackendError: After the last attempt failed with a transient error.
    """
    try:
        return policy.retrying(retry_on, describe, sleep)(fn)
    except tenacity.RetryError as exc:
        last = exc.last_attempt.exception()
        raise BackendError(
            f"{describe}: gave up after {policy.attempts} attempts: {type(last).__name__}: {last}"
        ) from last
