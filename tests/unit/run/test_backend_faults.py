"""Retries and backoff, and the Ollama and OpenAI backends against a server that misbehaves on purpose."""

from __future__ import annotations

import logging
import random
import time
from pathlib import Path

import pytest
from tests.fixtures import scripted_shard
from tests.fixtures.ollama_server import Mode, OllamaFixtureServer, serve

from slmbench.backends.base import BackendError, GenerationOptions
from slmbench.backends.ollama_backend import OllamaBackend
from slmbench.backends.openai_backend import OpenAIBackend
from slmbench.backends.retry import RetryPolicy, TransientError, call_with_retries
from slmbench.harness.loop import LoopSettings, run_trial
from slmbench.run.runner import build_record, trials

HI = [{"role": "user", "content": "Hi"}]
POLICY = RetryPolicy(attempts=3, base_delay_s=0.04, max_delay_s=0.08)


def _backend(server: OllamaFixtureServer, timeout_s: float = 2.0) -> OllamaBackend:
    return OllamaBackend("llama3.2", host=server.url, timeout_s=timeout_s, retry=POLICY)


def _openai(server: OllamaFixtureServer, timeout_s: float = 2.0) -> OpenAIBackend:
    return OpenAIBackend(f"{server.url}/v1", "qwen2.5-coder-0.5b", timeout_s=timeout_s, retry=POLICY)


# --- RetryPolicy and call_with_retries -----------------------------------------------------------


def test_delays_double_and_are_capped() -> None:
    policy = RetryPolicy(attempts=6, base_delay_s=0.5, max_delay_s=3.0)
    assert [policy.delay(k) for k in range(1, 6)] == [0.5, 1.0, 2.0, 3.0, 3.0]


def test_jitter_stays_within_the_delay() -> None:
    policy = RetryPolicy(base_delay_s=1.0, max_delay_s=8.0, jitter=True)
    rng = random.Random(0)
    draws = [policy.delay(3, rng) for _ in range(200)]
    assert all(0.0 <= d <= 4.0 for d in draws)
    assert len(set(draws)) > 100


def test_policy_rejects_nonsense() -> None:
    with pytest.raises(ValueError, match="attempts"):
        RetryPolicy(attempts=0)
    with pytest.raises(ValueError, match="delays"):
        RetryPolicy(base_delay_s=-1.0)


def test_gives_up_after_n_attempts_with_backoff() -> None:
    calls: list[int] = []
    waits: list[float] = []

    def fail() -> int:
        calls.append(1)
        raise TimeoutError("read timed out")

    policy = RetryPolicy(attempts=4, base_delay_s=0.5, max_delay_s=1.5)
    with pytest.raises(BackendError) as info:
        call_with_retries(fail, policy, retry_on=(TimeoutError,), describe="chat m", sleep=waits.append)
    assert str(info.value) == "chat m: gave up after 4 attempts: TimeoutError: read timed out"
    assert isinstance(info.value.__cause__, TimeoutError)
    assert len(calls) == 4
    assert waits == [0.5, 1.0, 1.5]


def test_succeeds_after_transient_failures() -> None:
    outcomes: list[BaseException | str] = [TransientError("503"), ConnectionError("refused"), "ok"]
    waits: list[float] = []

    def flaky() -> str:
        outcome = outcomes.pop(0)
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    result = call_with_retries(
        flaky, RetryPolicy(), retry_on=(TransientError, ConnectionError), describe="x", sleep=waits.append
    )
    assert result == "ok"
    assert waits == [0.5, 1.0]


def test_other_errors_are_not_retried() -> None:
    calls: list[int] = []

    def broken() -> None:
        calls.append(1)
        raise KeyError("bug")

    with pytest.raises(KeyError):
        call_with_retries(broken, RetryPolicy(), retry_on=(TimeoutError,), describe="x", sleep=lambda s: None)
    assert calls == [1]


# --- the backend against a misbehaving server ----------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "cause"),
    [("hang", "ReadTimeout"), ("http500", "TransientError"), ("drop", "RemoteProtocolError"),
     ("invalid_json", "JSONDecodeError")],
)  # fmt: skip
def test_misbehaviour_is_retried_then_fails(mode: Mode, cause: str) -> None:
    with serve(mode) as server:
        backend = _backend(server, timeout_s=0.3)
        start = time.monotonic()
        with pytest.raises(BackendError, match=rf"gave up after 3 attempts: {cause}") as info:
            backend.chat(HI, None, GenerationOptions())
        elapsed = time.monotonic() - start
        backend.close()
        seen = server.seen("/api/chat")
    assert server.url in str(info.value)
    assert len(seen) == 3
    gaps = [b.at - a.at for a, b in zip(seen, seen[1:], strict=False)]
    assert gaps[0] >= 0.04 and gaps[1] >= 0.08, f"backoff not applied: {gaps}"
    assert elapsed < 3 * 0.3 + 0.12 + 2.0


def test_refused_connection_is_retried_then_fails() -> None:
    with serve("refuse") as server:
        backend = _backend(server)
        start = time.monotonic()
        with pytest.raises(BackendError, match="gave up after 3 attempts: ConnectionError"):
            backend.chat(HI, None, GenerationOptions())
    assert time.monotonic() - start >= 0.04 + 0.08
    assert server.seen() == []


@pytest.mark.parametrize("fault", ["http500", "drop", "invalid_json"])
def test_flaky_server_succeeds_after_retries(fault: Mode) -> None:
    with serve("flaky", flaky_failures=2, flaky_fault=fault) as server:
        reply = _backend(server).chat(HI, None, GenerationOptions())
    assert reply.text == "Hello! How are you today?"
    assert len(server.seen("/api/chat")) == 3


def test_flaky_beyond_the_budget_fails() -> None:
    with serve("flaky", flaky_failures=3) as server, pytest.raises(BackendError, match="gave up after 3"):
        _backend(server).chat(HI, None, GenerationOptions())
    assert len(server.seen("/api/chat")) == 3


def test_slow_answer_under_the_timeout_is_accepted() -> None:
    with serve("slow", delay_s=0.3) as server:
        reply = _backend(server, timeout_s=2.0).chat(HI, None, GenerationOptions())
    assert reply.text == "Hello! How are you today?"
    assert reply.latency_s >= 0.3
    assert len(server.seen("/api/chat")) == 1


def test_empty_message_is_an_answer_not_an_error(caplog: pytest.LogCaptureFixture) -> None:
    with serve("empty_message") as server, caplog.at_level(logging.WARNING):
        reply = _backend(server).chat(HI, None, GenerationOptions())
    assert reply.text == "" and reply.native_tool_calls == []
    assert reply.completion_tokens == 1
    assert len(server.seen("/api/chat")) == 1, "an empty answer is not retried"
    assert any("empty assistant message" in r.getMessage() for r in caplog.records)


def test_preflight_names_host_and_model_when_server_is_dead() -> None:
    with serve("refuse") as server:
        backend = _backend(server)
        with pytest.raises(BackendError) as info:
            backend.preflight()
    message = str(info.value)
    assert server.url in message and "'llama3.2'" in message
    assert "is the server running? `ollama serve`" in message


def test_preflight_rejects_empty_reply() -> None:
    with serve("empty_message") as server, pytest.raises(BackendError, match="returned empty text"):
        _backend(server).preflight()


def test_fingerprint_on_dead_server_raises_backend_error() -> None:
    with serve("http500") as server, pytest.raises(BackendError, match="ollama show.*gave up after 3"):
        _backend(server).fingerprint()
    assert len(server.seen("/api/show")) == 3


# --- the OpenAI backend against the same faults on the OpenAI routes -----------------------------------------


@pytest.mark.parametrize(
    ("mode", "cause"),
    [("hang", "APITimeoutError"), ("http500", "TransientError"), ("drop", "APIConnectionError"),
     ("invalid_json", "JSONDecodeError")],
)  # fmt: skip
def test_openai_misbehaviour_is_retried_then_fails(mode: Mode, cause: str) -> None:
    with serve(mode) as server:
        backend = _openai(server, timeout_s=0.3)
        with pytest.raises(BackendError, match=rf"gave up after 3 attempts: {cause}") as info:
            backend.chat(HI, None, GenerationOptions())
        seen = server.seen("/v1/chat/completions")
    assert f"'qwen2.5-coder-0.5b' at {server.url}/v1" in str(info.value) and "\n" not in str(info.value)
    assert len(seen) == 3
    gaps = [b.at - a.at for a, b in zip(seen, seen[1:], strict=False)]
    assert gaps[0] >= 0.04 and gaps[1] >= 0.08, f"backoff not applied: {gaps}"


def test_openai_refused_connection_is_retried_then_fails() -> None:
    with (
        serve("refuse") as server,
        pytest.raises(BackendError, match="gave up after 3 attempts: APIConnectionError"),
    ):
        _openai(server).chat(HI, None, GenerationOptions())


@pytest.mark.parametrize("fault", ["http500", "drop", "invalid_json"])
def test_openai_flaky_server_succeeds_after_retries(fault: Mode) -> None:
    with serve("flaky", flaky_failures=2, flaky_fault=fault) as server:
        reply = _openai(server).chat(HI, None, GenerationOptions())
    assert reply.text == "Hello! How can I assist you today?"
    assert len(server.seen("/v1/chat/completions")) == 3


def test_openai_slow_answer_under_the_timeout_is_accepted() -> None:
    with serve("slow", delay_s=0.3) as server:
        reply = _openai(server, timeout_s=2.0).chat(HI, None, GenerationOptions())
    assert reply.text == "Hello! How can I assist you today?" and reply.latency_s >= 0.3


def test_openai_empty_message_is_an_answer_not_an_error() -> None:
    with serve("empty_message") as server:
        reply = _openai(server).chat(HI, None, GenerationOptions())
    assert reply.text == "" and reply.native_tool_calls == []
    assert len(server.seen("/v1/chat/completions")) == 1


@pytest.mark.parametrize("mode", ["refuse", "hang", "http500", "drop", "invalid_json"])
@pytest.mark.parametrize("kind", ["openai", "ollama"])
def test_a_misbehaving_server_is_an_infrastructure_error_never_a_model_failure(
    mode: Mode, kind: str, tmp_path: Path
) -> None:
    shard = scripted_shard.shard_spec(1, 1)
    trial = trials(shard)[0]
    with serve(mode) as server:
        backend = _openai(server, 0.3) if kind == "openai" else _backend(server, 0.3)
        run = run_trial(backend, trial, LoopSettings(max_turns=2), tmp_path)
    record = build_record(shard, trial, run, 1, "2026-01-01T00:00:00+00:00", {})
    assert run.stop_reason == "infra_error" and "gave up after 3 attempts" in run.infra_error
    assert (record.outcome, record.failure_class) == ("infra_error", None)
