"""The ``openai`` backend against the fixture server's OpenAI routes (responses recorded from llama.cpp's server):
requests sent, replies recorded as returned, fingerprint, the API key kept out of records and logs."""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from tests.fixtures.ollama_server import OllamaFixtureServer, serve
from tests.fixtures.openai_routes import recorded

from slmbench.backends.base import Backend, BackendError, ContextOverflow, GenerationOptions
from slmbench.backends.llamacpp_build import cmake_args
from slmbench.backends.openai_backend import OpenAIBackend, OpenAISettings, served_file_sha256
from slmbench.backends.openai_wire import context_overflow, one_line, to_openai_messages
from slmbench.backends.retry import RetryPolicy
from slmbench.harness.parser import parse_output
from slmbench.models.registry import open_backend

ROOT = Path(__file__).resolve().parents[3]
MODEL = "qwen2.5-coder-0.5b"
FAST = RetryPolicy(attempts=3, base_delay_s=0.01, max_delay_s=0.02)
SEARCH = {
    "type": "function",
    "function": {
        "name": "web_search",
        "description": "Search the web and return the top results.",
        "parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
    },
}
SECRET = "sk-test-7f3a9c1e5b2d4f6a8c0e"


@pytest.fixture
def server() -> Iterator[OllamaFixtureServer]:
    with serve("ok") as srv:
        yield srv


def _backend(server: OllamaFixtureServer, **kwargs: object) -> OpenAIBackend:
    return OpenAIBackend(f"{server.url}/v1", MODEL, timeout_s=5.0, retry=FAST, **kwargs)  # type: ignore[arg-type]


def _spec(server: OllamaFixtureServer, **fields: object) -> OpenAISettings:
    base = {"backend": "openai", "params_b": 0.5, "instruct": True, "base_url": f"{server.url}/v1"}
    return OpenAISettings.model_validate({**base, "served_model": MODEL, **fields})


def test_opened_through_the_registry_and_satisfies_the_protocol(server: OllamaFixtureServer) -> None:
    backend = open_backend("qwen-served", _spec(server))
    assert isinstance(backend, OpenAIBackend) and isinstance(backend, Backend)
    assert (backend.model, backend.model_id, backend.num_ctx) == (MODEL, "qwen-served", 4096)
    assert [r.path for r in server.seen()] == [
        "/v1/models",
        "/props",
    ]  # checked to be served before any trial
    assert backend.supports_native_tools  # /props: the template renders tools


def test_text_reply_and_the_request_sent(server: OllamaFixtureServer) -> None:
    options = GenerationOptions(temperature=0.3, top_p=0.9, seed=7, max_tokens=64)
    reply = _backend(server).chat([{"role": "user", "content": "Hi"}], None, options)
    assert reply.text == "Hello! How can I assist you today?"
    assert (reply.prompt_tokens, reply.completion_tokens, reply.cached_tokens) == (30, 10, 0)
    assert reply.native_tool_calls == [] and reply.finish_reason == "stop" and reply.latency_s > 0
    body = server.seen("/v1/chat/completions")[0].body
    assert body == {
        "model": MODEL,
        "messages": [{"role": "user", "content": "Hi"}],
        "temperature": 0.3,
        "top_p": 0.9,
        "seed": 7,
        "max_tokens": 64,
    }  # no tools, no stop, no logprobs unless asked


def test_tool_calls_kept_as_returned_and_parsed_by_the_harness(server: OllamaFixtureServer) -> None:
    reply = _backend(server).chat(
        [{"role": "user", "content": "How deep is Lake Varnholm?"}],
        [SEARCH],
        GenerationOptions(stop=("\nObservation:",)),
    )
    returned = recorded("chat_tool_call")["choices"][0]["message"]["tool_calls"]
    assert reply.native_tool_calls == returned  # the arguments still the server's JSON string
    assert reply.text == "" and reply.finish_reason == "tool_calls"
    body = server.seen("/v1/chat/completions")[0].body
    assert body["tools"] == [SEARCH] and body["tool_choice"] == "auto" and body["stop"] == ["\nObservation:"]
    schemas = {"web_search": SEARCH["function"]["parameters"]}
    parsed = parse_output(reply.text, reply.native_tool_calls, schemas, "strict", "native")
    assert [(a.call.name, a.arguments, a.call.surface) for a in parsed.accepted] == [
        ("web_search", {"query": "Lake Varnholm maximum depth"}, "native")
    ]


def test_history_goes_out_in_the_api_shape() -> None:
    history = [
        {"role": "user", "content": "Go"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "f", "arguments": {"a": 1}}}
            ],
        },
        {"role": "tool", "content": "result", "name": "f", "tool_call_id": "c1"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"function": {"name": "g", "arguments": "{}"}}],
        },
    ]
    sent = to_openai_messages(history)
    assert sent[1]["tool_calls"] == [
        {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}}
    ]
    assert sent[2] == history[2]
    assert sent[3] == {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "g", "arguments": "{}"}}],
    }
    assert history[1]["tool_calls"][0]["function"]["arguments"] == {"a": 1}  # the harness's copy unchanged


def test_fingerprint_from_what_the_server_reports(server: OllamaFixtureServer) -> None:
    backend = _backend(server, api_key_env=None)
    fp = backend.fingerprint()
    props = recorded("props")
    assert fp["backend"] == "openai" and fp["served_model"] == MODEL and fp["native_tools"] is True
    assert fp["model_card"]["meta"]["n_params"] == 630167424
    assert fp["server"] == {
        "build_info": "b1-0c1e570",
        "model_path": "/models/qwen2.5-coder-0.5b.gguf",
        "total_slots": 1,
        "modalities": props["modalities"],
        "n_ctx_per_slot": 2048,
        "chat_template_sha256": hashlib.sha256(props["chat_template"].encode()).hexdigest(),
        "model_sha256": None,  # the served file is not on this machine
    }
    assert backend.fingerprint() == fp and len(server.seen("/props")) == 1  # asked once


def test_the_served_file_is_hashed_where_it_is_readable(tmp_path: Path) -> None:
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF" + bytes(range(256)) * 10)
    assert served_file_sha256(str(model)) == hashlib.sha256(model.read_bytes()).hexdigest()
    assert served_file_sha256(str(tmp_path / "absent.gguf")) is None and served_file_sha256(None) is None


def test_the_api_key_is_sent_but_never_recorded_or_logged(
    server: OllamaFixtureServer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("SERVED_KEY", SECRET)
    with caplog.at_level(logging.DEBUG):
        backend = open_backend("qwen-served", _spec(server, api_key_env="SERVED_KEY"))
        backend.chat([{"role": "user", "content": "Hi"}], [SEARCH], GenerationOptions())
        fingerprint = json.dumps(backend.fingerprint())
    assert all(r.headers.get("authorization") == f"Bearer {SECRET}" for r in server.seen())
    assert '"api_key_env": "SERVED_KEY"' in fingerprint and SECRET not in fingerprint
    assert SECRET not in caplog.text and caplog.records  # debug logging was on


def test_an_unset_key_variable_is_one_line_naming_it(
    server: OllamaFixtureServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SERVED_KEY", raising=False)
    with pytest.raises(BackendError) as info:
        open_backend("qwen-served", _spec(server, api_key_env="SERVED_KEY"))
    assert str(info.value) == "model qwen-served: environment variable SERVED_KEY (api_key_env) is not set"
    assert server.seen() == []


def test_a_model_the_server_does_not_serve_is_refused_before_any_trial(server: OllamaFixtureServer) -> None:
    with pytest.raises(BackendError) as info:
        open_backend("other", _spec(server, served_model="llama-3-8b"))
    assert str(info.value) == (
        f"openai server {server.url}/v1 does not serve 'llama-3-8b' (model other); it serves: {MODEL}"
    )


def test_a_dead_server_fails_when_opened_in_one_line_naming_model_and_url() -> None:
    with serve("refuse") as dead:
        spec = OpenAISettings.model_validate(
            {
                "backend": "openai",
                "params_b": 1,
                "instruct": True,
                "base_url": f"{dead.url}/v1",
                "served_model": MODEL,
            }
        )
        with pytest.raises(BackendError) as info:
            open_backend("qwen-served", spec)
    message = str(info.value)
    assert "\n" not in message and message.startswith("openai server not answering for qwen-served: ")
    assert f"'{MODEL}' at {dead.url}/v1" in message and "APIConnectionError" in message


def test_native_tools_follow_the_config_then_the_template(server: OllamaFixtureServer) -> None:
    assert not open_backend("m", _spec(server, native_tools=False)).supports_native_tools
    assert len(server.seen("/props")) == 0  # the config decided: the server is not asked


def test_a_template_without_tools_makes_the_harness_list_them(
    server: OllamaFixtureServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    props = recorded("props")
    props["chat_template_caps"]["supports_tools"] = False  # as llama.cpp reports SmolLM2's template
    monkeypatch.setattr(
        "tests.fixtures.openai_routes.recorded", lambda name: props if name == "props" else recorded(name)
    )
    backend = open_backend("m", _spec(server))
    assert not backend.supports_native_tools and backend.fingerprint()["native_tools"] is False


def test_a_prompt_too_long_for_the_server_is_a_context_overflow() -> None:
    with serve("context_overflow") as server:
        with pytest.raises(ContextOverflow) as info:
            _backend(server).chat(
                [{"role": "user", "content": "long"}], None, GenerationOptions(max_tokens=256)
            )
        assert len(server.seen("/v1/chat/completions")) == 1  # not retried
    assert (info.value.prompt_tokens, info.value.n_ctx) == (3030, 2048)


def test_a_reply_past_the_configured_window_is_a_context_overflow(server: OllamaFixtureServer) -> None:
    with pytest.raises(ContextOverflow, match="prompt of 30 tokens \\+ 256 to generate exceeds n_ctx=256"):
        _backend(server, num_ctx=256).chat([{"role": "user", "content": "Hi"}], None, GenerationOptions())


def test_context_messages_of_other_servers_are_recognised() -> None:
    vllm = "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens."
    assert context_overflow({"object": "error", "message": vllm}, vllm, 256, 4096) is not None
    assert context_overflow({"error": {"message": "bad tool schema"}}, "bad tool schema", 256, 4096) is None


def test_other_client_errors_fail_at_once_as_infrastructure_errors(
    server: OllamaFixtureServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        "tests.fixtures.openai_routes.route",
        lambda *a, **k: (
            422,
            {"error": {"message": "tools: invalid\nschema", "type": "invalid_request_error"}},
        ),
    )
    with pytest.raises(BackendError) as info:
        _backend(server).chat([{"role": "user", "content": "Hi"}], None, GenerationOptions())
    assert f"openai chat, model '{MODEL}' at {server.url}/v1: HTTP 422: " in str(info.value)
    assert "\n" not in str(info.value) and len(server.seen()) == 1


def test_one_line_flattens_and_cuts() -> None:
    assert one_line("a\n  b\tc") == "a b c"
    assert one_line("x" * 400, limit=20) == "x" * 17 + "..."


def test_slmbench_run_on_a_dead_server_fails_before_any_record_in_one_line(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from slmbench.cli import main

    with serve("refuse") as dead:
        config = yaml.safe_load((ROOT / "tests/integration/served_config.yaml").read_text())
        config["models"]["smollm2-135m-served"]["base_url"] = f"{dead.url}/v1"
        path = tmp_path / "config.yaml"
        path.write_text(yaml.safe_dump(config))
        out = tmp_path / "shard.jsonl"
        args = ["run", "--config", str(path), "--model", "smollm2-135m-served", "--suite", "capability"]
        result = CliRunner().invoke(main, [*args, "--temperature", "0", "--tasks", "DA-1", "--out", str(out)])
    assert result.exit_code == 1
    [line] = result.output.splitlines()
    assert line.startswith("Error: openai server not answering for smollm2-135m-served: ")
    assert f"'smollm2-135m' at {dead.url}/v1" in line
    assert not out.exists() or out.read_bytes() == b""  # no record


def test_the_server_binary_is_named_by_the_make_target_that_builds_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from slmbench.models.llama_server import LlamaServer, LlamaServerError, llama_server_binary

    monkeypatch.setenv("SLMBENCH_CACHE", str(tmp_path))
    with pytest.raises(
        LlamaServerError, match=r"llama-server/0\.3\.36/llama-server is missing: run `make llama-server`"
    ):
        llama_server_binary()
    binary = tmp_path / "llama-server" / "0.3.36" / "llama-server"
    binary.parent.mkdir(parents=True)
    binary.write_text("")
    with pytest.raises(
        LlamaServerError, match=r"llama-server is not the portable build: run `make llama-server`"
    ):
        llama_server_binary()  # no CMake arguments beside it: another build
    binary.with_name("llama-server.cmake-args").write_text(cmake_args())
    server = LlamaServer(Path("m.gguf"), "m", parallel=4, n_ctx=2048, port=8081)
    command = server.command()
    assert command[0] == str(binary) and server.base_url == "http://127.0.0.1:8081/v1"
    assert command[command.index("-c") + 1] == "8192" and command[command.index("--parallel") + 1] == "4"
    assert "--jinja" in command and command[command.index("--host") + 1] == "127.0.0.1"


def test_extra_body_goes_with_every_request_and_into_the_fingerprint(server: OllamaFixtureServer) -> None:
    backend = open_backend("m", _spec(server, extra_body={"cache_prompt": False}))
    backend.chat([{"role": "user", "content": "Hi"}], None, GenerationOptions())
    assert server.seen("/v1/chat/completions")[0].body["cache_prompt"] is False
    assert backend.fingerprint()["extra_body"] == {"cache_prompt": False}


def test_the_raw_generated_text_is_kept_where_the_server_returns_it(server: OllamaFixtureServer) -> None:
    fields = {"verbose": True, "response_fields": ["content"]}
    backend = open_backend("m", _spec(server, extra_body=fields))
    reply = backend.chat(
        [{"role": "user", "content": "How deep is Lake Varnholm?"}], [SEARCH], GenerationOptions()
    )
    assert reply.server_text == recorded("chat_verbose")["__verbose"]["content"]
    assert reply.native_tool_calls == [] and reply.text == reply.server_text  # the server's parser left it
    assert server.seen("/v1/chat/completions")[0].body["response_fields"] == ["content"]
    plain = _backend(server).chat([{"role": "user", "content": "Hi"}], None, GenerationOptions())
    assert plain.server_text is None  # not asked for: not returned
