"""A serving shard's server: the model's own verified GGUF file behind llama.cpp's ``llama-server``, started by the
runner on 127.0.0.1, its trials run through the ``openai`` backend, and stopped by its PID whatever happens.

The server gets what the in-process backend gets: the same file, context window and threads, one slot
(``--parallel 1``), and ``--jinja``, so it renders the GGUF's chat template and parses tool calls itself (the
calls come back as ``tool_calls``). Every request asks for the raw generated text too (``verbose`` with
``response_fields: ["content"]``: ``ModelResponse.server_text``), so the analysis can compare the server's
parser with ours on the same text, and evaluates its prompt from the first token (``cache_prompt: false``: a
reused prefix changes the numerics, and a trial starts from an empty cache as ``clean_kv`` asks).
"""

from __future__ import annotations

import contextlib
import signal
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from slmbench.backends.base import Backend
from slmbench.backends.llamacpp_backend import LlamaCppSettings, usable_cpus
from slmbench.config import ConfigError, ModelSpec
from slmbench.models.llama_server import LlamaServer, llama_server_binary, server_build
from slmbench.models.registry import open_backend
from slmbench.models.weights import verify
from slmbench.run.key import ShardKey

if (
    TYPE_CHECKING
):  # the openai client loads only for a serving shard (a second per process that imports the runner)
    from slmbench.backends.openai_backend import OpenAISettings

PARALLEL = 1
"""Server slots: one trial at a time, as in-process."""
REQUEST_FIELDS: dict[str, Any] = {"cache_prompt": False, "verbose": True, "response_fields": ["content"]}
"""llama-server's own request fields sent with every chat request (recorded in the fingerprint's ``extra_body``)."""


def serving_settings(key: ShardKey, spec: ModelSpec, budget_s: float) -> dict[str, Any] | None:
    """What a serving shard records in each trial's ``provenance.settings.serving``: the server, the in-process
    model its trials pair with, and how the server ran it; None for a shard on the model's own backend.

    Raises:
        ConfigError: the model is not an embedded GGUF rendered with its own chat template.
    """
    if key.server is None:
        return None
    from slmbench.backends.openai_backend import OpenAISettings

    if not isinstance(spec, LlamaCppSettings) or spec.chat_format is not None:
        raise ConfigError(
            f"shard {key.name}: a serving shard needs an embedded model (backend llamacpp, weights) with the GGUF's"
            " own chat template (no chat_format)"
        )
    return {
        "server": key.server,
        "in_process_model": key.model,
        "n_ctx": key.n_ctx or spec.n_ctx,
        "threads": usable_cpus(),
        "parallel": PARALLEL,
        "jinja": True,
        "request": REQUEST_FIELDS,
        "timeout_s": max(OpenAISettings.model_fields["timeout_s"].default, budget_s),
    }


def served_spec(spec: ModelSpec, settings: dict[str, Any], base_url: str, alias: str) -> OpenAISettings:
    """The in-process model's entry as an ``openai`` model served at ``base_url`` under ``alias``."""
    from slmbench.backends.openai_backend import OpenAISettings

    return OpenAISettings.model_validate(
        {
            **spec.model_dump(include=set(ModelSpec.model_fields) - {"weights"}),
            "backend": "openai",
            "base_url": base_url,
            "served_model": alias,
            "n_ctx": settings["n_ctx"],
            "extra_body": dict(settings["request"]),
            "timeout_s": settings["timeout_s"],
            "concurrency": PARALLEL,
        }
    )


@contextlib.contextmanager
def serving(
    model_id: str,
    spec: ModelSpec,
    settings: dict[str, Any],
    on_start: Callable[[LlamaServer], None] | None = None,
) -> Iterator[Callable[[], Backend]]:
    """A backend factory for the shard's runner: its first call checks the binary and the weights, starts the
    server and waits until it answers, then opens the ``openai`` backend on it. The server is stopped by its PID
    when the block exits, whatever ends it (an error, Ctrl-C, SIGTERM); ``on_start`` is told of the server.

    Raises:
        LlamaServerError: (from the factory) the binary is missing (``make llama-server``) or the server did not
            come up.
    """
    with contextlib.ExitStack() as stack:
        stack.enter_context(_sigterm_as_interrupt())

        def factory() -> Backend:
            llama_server_binary()  # a missing binary fails before the weights are hashed
            gguf = verify(spec)
            folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="slmbench-server-")))
            server = LlamaServer(
                gguf,
                model_id,
                parallel=PARALLEL,
                n_ctx=settings["n_ctx"],
                threads=settings["threads"],
                log_path=folder / "llama-server.log",
            )
            stack.enter_context(server)
            settings["build"] = server_build(
                server.log_path.read_text(errors="replace") if server.log_path else ""
            )
            if on_start is not None:
                on_start(server)
            return open_backend(model_id, served_spec(spec, settings, server.base_url, model_id))

        yield factory


@contextlib.contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM (a scheduler cancelling the job) raises KeyboardInterrupt while the block runs, so the server is
    stopped on the way out as on Ctrl-C (only the main thread can install a handler; elsewhere nothing changes)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
