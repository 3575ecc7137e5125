"""The ``openai`` backend: chat with any OpenAI-compatible server (vLLM, SGLang, llama.cpp's llama-server,
LM Studio, Ollama's /v1) through the official ``openai`` client.

Tools go to the server (``tools=``, ``tool_choice``), so the server's chat template and tool-call parser are part
of what is measured; the reply is recorded as the server returned it (``openai_wire``). The client's own retries
are off: every request goes through the project's retry policy, and a dead, slow or misbehaving server
(connection refused, 5xx, timeouts, a body that is not a completion) becomes a ``BackendError``, an
infrastructure error of the trial. The API key is read from the environment variable the config names; only
that name is ever recorded. One backend serves many trials at once (``concurrency``): the client is thread-safe.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, TypeVar, cast

import httpx
import openai
from pydantic import Field

from slmbench.backends.base import (
    BackendError,
    ContextOverflow,
    GenerationOptions,
    Message,
    ModelReply,
    register_backend,
)
from slmbench.backends.openai_wire import (
    context_overflow,
    model_card,
    one_line,
    request_options,
    server_identity,
    template_takes_tools,
    to_model_reply,
    to_openai_messages,
)
from slmbench.backends.retry import RetryPolicy, TransientError, call_with_retries
from slmbench.backends.settings import ServedEntry

logger = logging.getLogger(__name__)
T = TypeVar("T")

NO_KEY = "unused"
"""The key sent when the config names no key variable (local servers ignore it; the client needs one)."""
TRANSIENT_ERRORS: tuple[type[BaseException], ...] = (
    TransientError,  # HTTP 5xx and 429, a 200 that is not a completion
    openai.APIConnectionError,  # refused, reset, dropped mid-body, timeouts (APITimeoutError)
    openai.APIResponseValidationError,  # a body the client cannot read as the API's shape
    json.JSONDecodeError,  # a body that is not JSON
)
_FILE_HASHES: dict[tuple[str, int, int], str] = {}
_FILE_HASHES_LOCK = threading.Lock()


def api_key(variable: str | None, model_id: str) -> str:
    """The API key from the environment variable ``variable`` (the config's ``api_key_env``), or a placeholder
    when none is named."""
    if variable is None:
        return NO_KEY
    key = os.environ.get(variable)
    if not key:
        raise BackendError(f"model {model_id}: environment variable {variable} (api_key_env) is not set")
    return key


def served_file_sha256(path: object) -> str | None:
    """The sha256 of the file a server reports it serves, when that file is readable here (computed once per
    path, size and modification time)."""
    if not isinstance(path, str) or not Path(path).is_file():
        return None
    stat = Path(path).stat()
    key = (path, stat.st_size, stat.st_mtime_ns)
    with _FILE_HASHES_LOCK:
        if key not in _FILE_HASHES:
            with open(path, "rb") as handle:
                _FILE_HASHES[key] = hashlib.file_digest(handle, "sha256").hexdigest()
        return _FILE_HASHES[key]


_ENV_NAME = r"^[A-Za-z_][A-Za-z0-9_]*$"


class OpenAISettings(ServedEntry):
    """A model behind an OpenAI-compatible server: where the server is, the name it serves the model under, the
    variable that holds the key, and what goes with each request."""

    backend: Literal["openai"]
    base_url: str = Field(
        description="the server's OpenAI-compatible base URL (e.g. http://127.0.0.1:8080/v1)"
    )
    served_model: str = Field(description="the model name the server serves (its /v1/models id)")
    api_key_env: str | None = Field(
        default=None,
        pattern=_ENV_NAME,
        description="the NAME of the environment variable that holds the API key (never the key)",
    )
    native_tools: bool | None = Field(
        default=None,
        description="tools go to the server as tools= (None: unless llama.cpp's /props says the template has no"
        " place for them); false: the harness lists them in its prompt",
    )
    extra_body: dict[str, Any] = Field(
        default_factory=dict,
        description="JSON fields sent with every chat request beyond the API's own, as the server defines them"
        " (recorded in the fingerprint; llama.cpp's server: {cache_prompt: false} evaluates every prompt from"
        " its first token)",
    )


@register_backend(
    name="openai",
    in_process=False,
    describes="an OpenAI-compatible server",
    engine="OpenAI-compatible server",
    labels=None,
)
class OpenAIBackend:
    """A model served by an OpenAI-compatible server, called through ``openai.OpenAI`` with bounded retries."""

    name = "openai"
    settings = OpenAISettings

    @classmethod
    def from_spec(
        cls, model_id: str, spec: OpenAISettings, weights: Path | None, **overrides: Any
    ) -> OpenAIBackend:
        """The configured server and model, checked to be served (``check_served``) before any trial runs."""
        backend = cls(
            spec.base_url,
            spec.served_model,
            api_key_env=spec.api_key_env,
            num_ctx=overrides.get("n_ctx") or spec.n_ctx,
            timeout_s=spec.timeout_s,
            model_id=model_id,
            native_tools=spec.native_tools,
            extra_body=spec.extra_body,
        )
        backend.check_served()
        return backend

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key_env: str | None = None,
        num_ctx: int = 4096,
        timeout_s: float = 120.0,
        retry: RetryPolicy | None = None,
        model_id: str = "",
        native_tools: bool | None = None,
        extra_body: dict[str, Any] | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.model_id = model_id or model
        self.api_key_env = api_key_env
        self.num_ctx = num_ctx
        self.timeout_s = timeout_s
        self.retry = retry or RetryPolicy()
        self.native_tools = native_tools
        self.extra_body = dict(extra_body or {})
        # tools go to the server as ``tools=`` (the API takes them; ``check_served`` asks llama.cpp's server
        # whether the template renders them), or the harness lists them in its prompt
        self.supports_native_tools = True if native_tools is None else native_tools
        self._key = api_key(api_key_env, self.model_id)
        self._client = openai.OpenAI(
            base_url=self.base_url, api_key=self._key, timeout=timeout_s, max_retries=0
        )
        self._fingerprint: dict[str, Any] | None = None
        self._lock = threading.Lock()

    @property
    def where(self) -> str:
        """The model and the server, for messages."""
        return f"model {self.model!r} at {self.base_url}"

    def _call(self, what: str, fn: Callable[[], T]) -> T:
        """Run one request with retries: 5xx and 429 are transient, 404 fails at once, other 4xx propagate."""

        def attempt() -> T:
            try:
                return fn()
            except (openai.InternalServerError, openai.RateLimitError) as exc:
                raise TransientError(f"HTTP {exc.status_code}: {one_line(exc.message)}") from exc
            except openai.NotFoundError as exc:
                raise BackendError(
                    f"openai {what}, {self.where}: HTTP 404 (wrong base_url or served_model?): {one_line(exc.message)}"
                ) from exc
            except openai.APIStatusError as exc:
                if exc.status_code >= 500:
                    raise TransientError(f"HTTP {exc.status_code}: {one_line(exc.message)}") from exc
                raise

        return call_with_retries(
            attempt, self.retry, retry_on=TRANSIENT_ERRORS, describe=f"openai {what}, {self.where}"
        )

    def check_served(self) -> None:
        """Raise a one-line BackendError unless the server answers ``/v1/models`` and lists the model; where the
        config leaves ``native_tools`` open, ask the server whether its chat template renders tools."""
        try:
            served = [m.get("id") for m in self._models()]
        except BackendError as exc:
            raise BackendError(f"openai server not answering for {self.model_id}: {exc}") from None
        if served and self.model not in served:
            raise BackendError(
                f"openai server {self.base_url} does not serve {self.model!r} (model {self.model_id}); "
                f"it serves: {', '.join(map(str, served))}"
            )
        takes_tools = template_takes_tools(self._probe("/props")) if self.native_tools is None else None
        if takes_tools is not None:
            self.supports_native_tools = takes_tools

    def _models(self) -> list[dict[str, Any]]:
        page = self._call("models", self._client.models.list)
        return [m.model_dump() for m in page.data]

    def chat(
        self, messages: list[Message], tools: list[dict[str, Any]] | None, options: GenerationOptions
    ) -> ModelReply:
        """Answer a conversation; an empty assistant message is returned as empty text (and logged).

        Raises:
            ContextOverflow: The server refused the prompt as too long for its context window, or the prompt as
                it counted it plus ``max_tokens`` exceeds ``num_ctx`` (the rule of the embedded backend).
            BackendError: The server failed, after retries where the failure is transient.
        """
        payload = to_openai_messages(messages)
        sent = request_options(options)
        if tools:
            sent.update(tools=tools, tool_choice="auto")
        if self.extra_body:
            sent["extra_body"] = self.extra_body

        def once() -> ModelReply:
            start = time.perf_counter()
            completion = self._client.chat.completions.create(
                model=self.model, messages=cast(Any, payload), **sent
            )
            return to_model_reply(completion, time.perf_counter() - start)

        try:
            reply = self._call("chat", once)
        except openai.APIStatusError as exc:  # a 4xx other than 404 and 429: not retried
            overflow = context_overflow(exc.body, exc.message, options.max_tokens, self.num_ctx)
            if overflow is not None:
                raise overflow from exc
            raise BackendError(
                f"openai chat, {self.where}: HTTP {exc.status_code}: {one_line(exc.message)}"
            ) from exc
        if reply.prompt_tokens + options.max_tokens > self.num_ctx:
            raise ContextOverflow(reply.prompt_tokens, options.max_tokens, self.num_ctx)
        if not reply.text and not reply.native_tool_calls:
            logger.warning(
                "openai %s returned an empty assistant message (finish_reason=%r)",
                self.where,
                reply.finish_reason,
            )
        return reply

    def reset(self) -> bool:
        """A server's prompt cache cannot be cleared through the API: reported, not done."""
        return False

    def fingerprint(self) -> dict[str, Any]:
        """What is served, as the server reports it: its ``/v1/models`` entry, ``/props`` and ``/version`` where
        they exist, and the served file's sha256 where the server names a file readable here (once per backend)."""
        with self._lock:
            if self._fingerprint is None:
                server = server_identity(self._probe("/props"), self._probe("/version"))
                if "model_path" in server:
                    server["model_sha256"] = served_file_sha256(server["model_path"])
                self._fingerprint = {
                    "backend": self.name,
                    "client_version": openai.__version__,
                    "base_url": self.base_url,
                    "served_model": self.model,
                    "api_key_env": self.api_key_env,
                    "n_ctx": self.num_ctx,
                    "native_tools": self.supports_native_tools,
                    "extra_body": self.extra_body,
                    "model_card": model_card(self._models(), self.model),
                    "server": server,
                }
            return dict(self._fingerprint)

    def _probe(self, path: str) -> Any:
        """The JSON of ``GET <server root><path>``, or None where the server has no such endpoint."""
        root = self.base_url.removesuffix("/v1")
        headers = {"Authorization": f"Bearer {self._key}"} if self.api_key_env else {}
        try:
            response = httpx.get(root + path, headers=headers, timeout=min(self.timeout_s, 10.0))
            response.raise_for_status()
            return response.json()
        except (httpx.HTTPError, ValueError) as exc:
            logger.debug("openai server %s has no %s: %s", root, path, type(exc).__name__)
            return None

    def close(self) -> None:
        """Close the client's connection pool (the server keeps serving)."""
        self._client.close()
