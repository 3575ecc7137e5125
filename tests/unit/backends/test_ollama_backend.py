"""The Ollama backend against the local fixture server: requests sent, replies mapped, fingerprint."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from importlib import metadata
from typing import Any

import ollama
import pytest
from tests.fixtures.ollama_server import OllamaFixtureServer, recorded, serve

from slmbench.backends.base import Backend, BackendError, ContextOverflow, GenerationOptions, create_backend
from slmbench.backends.ollama_backend import DEFAULT_HOST, ModelNotFoundError, OllamaBackend
from slmbench.backends.ollama_wire import dropped_schema_keys, to_ollama_messages
from slmbench.backends.retry import RetryPolicy

FAST = RetryPolicy(attempts=3, base_delay_s=0.01, max_delay_s=0.02)
WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_current_weather",
        "description": "Get the current weather for a location",
        "parameters": {
            "type": "object",
            "properties": {
                "location": {"type": "string", "description": "The location, e.g. San Francisco, CA"},
                "format": {
                    "type": "string",
                    "description": "celsius or fahrenheit",
                    "enum": ["celsius", "fahrenheit"],
                },
            },
            "required": ["location", "format"],
        },
    },
}


@pytest.fixture
def server() -> Iterator[OllamaFixtureServer]:
    with serve("ok") as srv:
        yield srv


@pytest.fixture
def backend(server: OllamaFixtureServer) -> Iterator[OllamaBackend]:
    b = OllamaBackend("llama3.2", host=server.url, num_ctx=2048, timeout_s=5.0, retry=FAST)
    yield b
    b.close()


def test_registered_and_satisfies_protocol(server: OllamaFixtureServer) -> None:
    b = create_backend("ollama", model="llama3.2", host=server.url)
    assert isinstance(b, OllamaBackend)
    assert isinstance(b, Backend)
    assert b.name == "ollama"


def test_host_from_env_else_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:5555")
    assert OllamaBackend("m").host == "http://127.0.0.1:5555"
    monkeypatch.delenv("OLLAMA_HOST")
    assert OllamaBackend("m").host == DEFAULT_HOST == "http://localhost:11434"
    assert OllamaBackend("m", host="http://127.0.0.1:1").host == "http://127.0.0.1:1"


def test_text_answer_mapped(backend: OllamaBackend, server: OllamaFixtureServer) -> None:
    reply = backend.chat([{"role": "user", "content": "Hi"}], None, GenerationOptions())
    assert reply.text == "Hello! How are you today?"
    assert reply.native_tool_calls == []
    assert (reply.prompt_tokens, reply.completion_tokens) == (26, 298)
    assert reply.finish_reason == "stop"
    assert reply.latency_s > 0
    (request,) = server.seen("/api/chat")
    assert request.body["model"] == "llama3.2"
    assert request.body["stream"] is False
    assert request.body["messages"] == [{"role": "user", "content": "Hi"}]
    assert not request.body.get("tools")  # the client sends tools: [] when there are none


def test_tool_call_mapped_and_tools_sent(backend: OllamaBackend, server: OllamaFixtureServer) -> None:
    reply = backend.chat(
        [{"role": "user", "content": "Weather in Paris?"}], [WEATHER_TOOL], GenerationOptions()
    )
    assert reply.text == ""
    assert reply.native_tool_calls == [
        {
            "type": "function",
            "function": {
                "name": "get_current_weather",
                "arguments": {"format": "celsius", "location": "Paris, FR"},
            },
        }
    ]
    assert (reply.prompt_tokens, reply.completion_tokens) == (122, 33)
    assert server.seen("/api/chat")[0].body["tools"] == [WEATHER_TOOL]


def test_options_forwarded_exactly(backend: OllamaBackend, server: OllamaFixtureServer) -> None:
    opts = GenerationOptions(
        temperature=0.7, top_p=0.9, seed=42, max_tokens=64, stop=("\n\n", "Observation:")
    )
    backend.chat([{"role": "user", "content": "Hi"}], None, opts)
    backend.chat([{"role": "user", "content": "Hi"}], None, GenerationOptions())
    first, second = (r.body["options"] for r in server.seen("/api/chat"))
    assert first == {
        "num_ctx": 2048,
        "seed": 42,
        "temperature": 0.7,
        "top_p": 0.9,
        "num_predict": 64,
        "stop": ["\n\n", "Observation:"],
    }
    # no stop given: the key is absent, so the Modelfile's own stop sequences stay in force
    assert second == {"num_ctx": 2048, "seed": 0, "temperature": 0.0, "top_p": 1.0, "num_predict": 256}


def test_openai_history_converted(backend: OllamaBackend, server: OllamaFixtureServer) -> None:
    history: list[dict[str, Any]] = [
        {"role": "system", "content": "Use tools."},
        {"role": "user", "content": "Weather?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_0",
                    "type": "function",
                    "function": {"name": "get_current_weather", "arguments": '{"location": "Paris, FR"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_0", "name": "get_current_weather", "content": "12 C"},
    ]
    backend.chat(history, [WEATHER_TOOL], GenerationOptions())
    sent = server.seen("/api/chat")[0].body["messages"]
    assert sent[2] == {
        "role": "assistant",
        "tool_calls": [{"function": {"name": "get_current_weather", "arguments": {"location": "Paris, FR"}}}],
    }
    assert sent[3] == {"role": "tool", "content": "12 C", "tool_name": "get_current_weather"}


def test_unparsable_history_arguments_kept_raw() -> None:
    call = {"function": {"name": "f", "arguments": "{not json"}}
    converted = to_ollama_messages([{"role": "assistant", "content": "", "tool_calls": [call]}])
    assert converted[0]["tool_calls"][0]["function"]["arguments"] == {"_raw_arguments": "{not json"}


def test_fingerprint_fields_and_cache(backend: OllamaBackend, server: OllamaFixtureServer) -> None:
    fp = backend.fingerprint()
    tags = {m["model"]: m for m in recorded("tags")["models"]}
    assert fp["backend"] == "ollama"
    assert fp["digest"] == tags["llama3.2:latest"]["digest"]
    assert fp["quantization"] == "Q4_K_M"
    assert fp["parameter_size"] == "3.2B"
    assert fp["family"] == "llama"
    assert fp["license_head"] == "LLAMA 3.2 COMMUNITY LICENSE AGREEMENT"
    assert fp["context_length_trained"] == 131072
    assert fp["num_ctx"] == 2048
    assert fp["size_vram_bytes"] == fp["size_bytes"] == 2700000000
    assert fp["context_length_loaded"] == 4096
    assert fp["server_version"] == "0.5.1"
    assert fp["client_version"] == metadata.version("ollama")
    assert len(fp["template_sha256"]) == 64
    n_requests = len(server.seen())
    assert backend.fingerprint() == fp
    assert len(server.seen()) == n_requests, "fingerprint is cached after the first call"
    assert server.seen("/api/show")[0].body == {"model": "llama3.2"}


def test_lossy_tool_schema_detected_and_logged(
    backend: OllamaBackend, server: OllamaFixtureServer, caplog: pytest.LogCaptureFixture
) -> None:
    tool = {
        "type": "function",
        "function": {
            "name": "book",
            "parameters": {
                "type": "object",
                "properties": {"n": {"type": "integer", "minimum": 1}, "room": {"type": "string"}},
                "additionalProperties": False,
            },
        },
    }
    assert dropped_schema_keys(tool) == [
        "function.parameters.properties.n.minimum",
        "function.parameters.additionalProperties",
    ]
    assert dropped_schema_keys(WEATHER_TOOL) == []
    with caplog.at_level(logging.WARNING, logger="slmbench.backends.ollama_backend"):
        backend.chat([{"role": "user", "content": "x"}], [tool], GenerationOptions())
        backend.chat([{"role": "user", "content": "x"}], [tool], GenerationOptions())
    warnings = [r for r in caplog.records if "drops schema keys" in r.getMessage()]
    assert len(warnings) == 1 and "minimum" in warnings[0].getMessage()


def test_preflight_passes_on_healthy_server(backend: OllamaBackend, server: OllamaFixtureServer) -> None:
    backend.preflight()
    (request,) = server.seen("/api/chat")
    assert request.body["messages"] == [{"role": "user", "content": "Reply with OK."}]


def test_missing_model_fails_at_once_with_pull_hint(server: OllamaFixtureServer) -> None:
    b = OllamaBackend("nope:1b", host=server.url, retry=FAST)
    with pytest.raises(ModelNotFoundError, match=r"ollama pull nope:1b") as info:
        b.preflight()
    assert server.url in str(info.value) and "nope:1b" in str(info.value)
    assert len(server.seen("/api/chat")) == 1, "a 404 is not retried"
    with pytest.raises(BackendError, match="not found"):
        b.fingerprint()


def test_fixture_streams_ndjson(server: OllamaFixtureServer) -> None:
    client = ollama.Client(host=server.url, timeout=5)
    parts = list(client.chat(model="llama3.2", messages=[{"role": "user", "content": "Why?"}], stream=True))
    assert "".join(p.message.content or "" for p in parts) == "The sky is blue."
    assert parts[-1].done and parts[-1].eval_count == 282
    assert server.seen("/api/chat")[0].body["stream"] is True


def test_prompt_that_cannot_fit_raises_context_overflow(server: OllamaFixtureServer) -> None:
    small = OllamaBackend("llama3.2", host=server.url, num_ctx=200, retry=FAST)
    with pytest.raises(ContextOverflow) as info:
        small.chat([{"role": "user", "content": "Hi"}], None, GenerationOptions(max_tokens=256))
    assert (info.value.prompt_tokens, info.value.n_ctx) == (26, 200)
    reply = small.chat([{"role": "user", "content": "Hi"}], None, GenerationOptions(max_tokens=100))
    assert reply.text == "Hello! How are you today?"
