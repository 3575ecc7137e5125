"""The Ollama backend: chat with a model served by ``ollama serve`` through the official client."""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, TypeVar

import httpx
import ollama
from ollama._client import (
    _parse_host,
)  # the client's own host normalisation, so /api/version hits the same server
from pydantic import Field

from slmbench.backends.base import (
    BackendError,
    ContextOverflow,
    GenerationOptions,
    Message,
    ModelReply,
    register_backend,
)
from slmbench.backends.ollama_wire import (
    RESIDENT_KEYS,
    dropped_schema_keys,
    resident_identity,
    static_identity,
    to_model_reply,
    to_ollama_messages,
    to_ollama_options,
)
from slmbench.backends.retry import RetryPolicy, TransientError, call_with_retries
from slmbench.backends.settings import ServedEntry

logger = logging.getLogger(__name__)

T = TypeVar("T")

DEFAULT_HOST = "http://localhost:11434"
TRANSIENT_ERRORS: tuple[type[BaseException], ...] = (
    TransientError,  # HTTP 5xx
    ConnectionError,  # the client's translation of httpx.ConnectError (refused, unreachable)
    httpx.TransportError,  # timeouts, resets, dropped connections, protocol errors
    json.JSONDecodeError,  # a body that is not JSON
)


class ModelNotFoundError(BackendError):
    """The server answered 404: the model is not pulled (or misspelt)."""


class OllamaSettings(ServedEntry):
    """A model Ollama serves at ``OLLAMA_HOST``: its tag and how long a request may take."""

    backend: Literal["ollama"]
    ollama_tag: str | None = Field(
        default=None, description="the tag Ollama serves (default: the entry's key)"
    )


@register_backend(name="ollama", in_process=False, describes="Ollama", engine="Ollama", labels="ollama")
class OllamaBackend:
    """A model served by Ollama, called through ``ollama.Client`` with bounded retries."""

    name = "ollama"
    supports_native_tools = True  # the chat API takes ``tools=`` and returns ``tool_calls``
    settings = OllamaSettings

    @classmethod
    def from_spec(
        cls, model_id: str, spec: OllamaSettings, weights: Path | None, **overrides: Any
    ) -> OllamaBackend:
        """The configured tag (default: the model id) at ``OLLAMA_HOST``, with the model's context window."""
        return cls(
            model=spec.ollama_tag or model_id,
            num_ctx=overrides.get("n_ctx") or spec.n_ctx,
            timeout_s=spec.timeout_s,
        )

    def __init__(
        self,
        model: str,
        host: str | None = None,
        num_ctx: int = 4096,
        timeout_s: float = 120.0,
        retry: RetryPolicy | None = None,
    ) -> None:
        self.model = model
        self.host = host or os.environ.get("OLLAMA_HOST") or DEFAULT_HOST
        self.num_ctx = num_ctx
        self.timeout_s = timeout_s
        self.retry = retry or RetryPolicy()
        self._client = ollama.Client(host=self.host, timeout=timeout_s)
        self._fingerprint: dict[str, Any] | None = None
        self._resident_known = False
        self._warned_tools: set[str] = set()

    def _call(self, what: str, fn: Callable[[], T]) -> T:
        """Run one client call with retries; 5xx is transient, any other HTTP error fails at once."""

        def attempt() -> T:
            try:
                return fn()
            except ollama.ResponseError as exc:
                if exc.status_code >= 500:
                    raise TransientError(str(exc)) from exc
                if exc.status_code == 404:
                    raise ModelNotFoundError(
                        f"{what}: model {self.model!r} not found on {self.host}: {exc.error} "
                        f"(model not pulled? `ollama pull {self.model}`)"
                    ) from exc
                raise BackendError(f"{what}: {exc}") from exc

        return call_with_retries(attempt, self.retry, retry_on=TRANSIENT_ERRORS, describe=what)

    def chat(
        self, messages: list[Message], tools: list[dict[str, Any]] | None, options: GenerationOptions
    ) -> ModelReply:
        """Answer a conversation; an empty assistant message is returned as empty text (and logged).

        Raises:
            ContextOverflow: The prompt as counted by the server plus ``max_tokens`` exceeds ``num_ctx``
                (the server may have truncated it; a prompt the server does not count is not caught).
            BackendError: The server failed, after retries where the failure is transient.
        """
        for tool in tools or []:
            self._warn_lossy_schema(tool)
        payload = to_ollama_messages(messages)
        opts = to_ollama_options(options, self.num_ctx)
        latency = 0.0

        def once() -> ollama.ChatResponse:
            nonlocal latency
            start = time.perf_counter()
            response = self._client.chat(
                model=self.model,
                messages=payload,
                tools=tools or None,
                options=opts,
                logprobs=True if options.logprobs else None,
                stream=False,
            )
            latency = time.perf_counter() - start
            return response

        reply = to_model_reply(self._call(f"ollama chat {self.model} @ {self.host}", once), latency)
        if reply.prompt_tokens + options.max_tokens > self.num_ctx:
            # Ollama truncates an over-long prompt silently; apply the llamacpp backend's rule after the fact.
            raise ContextOverflow(reply.prompt_tokens, options.max_tokens, self.num_ctx)
        if not reply.text and not reply.native_tool_calls:
            logger.warning(
                "ollama %s returned an empty assistant message (done_reason=%r)",
                self.model,
                reply.finish_reason,
            )
        return reply

    def chat_logprobs(
        self, messages: list[Message], options: dict[str, Any], top_logprobs: int
    ) -> ollama.ChatResponse:
        """One non-streaming chat that returns each generated token's log-probability and its top alternatives.

        ``options`` go to the server as they are (e.g. from ``to_ollama_options``); failures are retried as in
        ``chat``. The response is returned unmapped, ``logprobs`` included.
        """
        payload = to_ollama_messages(messages)
        return self._call(
            f"ollama chat {self.model} @ {self.host}",
            lambda: self._client.chat(
                model=self.model,
                messages=payload,
                options=options,
                logprobs=True,
                top_logprobs=top_logprobs,
                stream=False,
            ),
        )

    def _warn_lossy_schema(self, tool: dict[str, Any]) -> None:
        name = str(tool.get("function", {}).get("name", "?"))
        if name in self._warned_tools:
            return
        self._warned_tools.add(name)
        dropped = dropped_schema_keys(tool)
        if dropped:
            logger.warning("tool %s: the ollama client drops schema keys %s", name, ", ".join(dropped))

    def reset(self) -> bool:
        """The server's prompt cache cannot be cleared through the API: reported, not done."""
        return False

    def preflight(self) -> None:
        """Check that the server answers and the model replies; raise BackendError with a hint if not."""
        options = GenerationOptions(temperature=0.0, max_tokens=16)
        try:
            reply = self.chat([{"role": "user", "content": "Reply with OK."}], None, options)
        except ModelNotFoundError as exc:  # its message already names host, model and `ollama pull`
            raise ModelNotFoundError(f"ollama preflight failed: {exc}") from exc
        except BackendError as exc:
            raise BackendError(
                f"ollama preflight failed for model {self.model!r} at {self.host} "
                f"(is the server running? `ollama serve`): {exc}"
            ) from exc
        if not reply.text.strip():
            raise BackendError(
                f"ollama preflight: model {self.model!r} at {self.host} returned empty text to "
                f"'Reply with OK.' (done_reason={reply.finish_reason!r})"
            )

    def fingerprint(self) -> dict[str, Any]:
        """Identity of the served model from ``show``, ``tags``, ``ps`` and ``version``.

        The static part is cached after the first call; the resident part (``ps``) is cached once the
        model is loaded, since ``ps`` lists only loaded models.
        """
        if self._fingerprint is None:
            self._fingerprint = self._static_fingerprint()
        if not self._resident_known:
            resident = self._resident_fingerprint()
            self._resident_known = resident is not None
            self._fingerprint.update(resident or dict.fromkeys(RESIDENT_KEYS))
        return dict(self._fingerprint)

    def _static_fingerprint(self) -> dict[str, Any]:
        where = f"{self.model} @ {self.host}"
        show = self._call(f"ollama show {where}", lambda: self._client.show(self.model))
        tags = self._call(f"ollama tags {where}", self._client.list)
        return static_identity(show, tags, self._server_version(), self.model, self.host, self.num_ctx)

    def _resident_fingerprint(self) -> dict[str, Any] | None:
        return resident_identity(self._call(f"ollama ps @ {self.host}", self._client.ps), self.model)

    def _server_version(self) -> str | None:
        try:
            response = httpx.get(f"{_parse_host(self.host)}/api/version", timeout=min(self.timeout_s, 10.0))
            response.raise_for_status()
            return str(response.json().get("version"))
        except (httpx.HTTPError, ValueError) as exc:
            logger.debug("ollama version unavailable at %s: %s", self.host, exc)
            return None

    def close(self) -> None:
        """Close the HTTP connection pool (the server keeps the model loaded per its keep_alive)."""
        self._client.close()
