"""The model-backend seam: one Protocol, a registry by name, and the shapes that cross it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

if TYPE_CHECKING:
    from slmbench.config import ModelSpec

Message = dict[str, Any]
"""A chat message: ``{"role": "system"|"user"|"assistant"|"tool", "content": str, ...}``."""


@dataclass(frozen=True)
class GenerationOptions:
    """Sampling and length options for one model call."""

    temperature: float = 0.0
    top_p: float = 1.0
    seed: int = 0
    max_tokens: int = 256
    stop: tuple[str, ...] = ()
    logprobs: bool = False


@dataclass
class ModelReply:
    """What a backend returned for one call: the raw text and its costs."""

    text: str
    native_tool_calls: list[dict[str, Any]] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    latency_s: float = 0.0
    finish_reason: str = ""
    logprobs: list[float] | None = None
    restored_tokens: int = 0  # prompt tokens whose state a prefix cache restored instead of evaluating them
    server_text: str | None = (
        None  # a server's raw generated text, before its tool-call parser (where returned)
    )


class BackendError(RuntimeError):
    """The infrastructure failed (server down, model will not load): never a model failure."""


class ContextOverflow(BackendError):
    """The conversation no longer fits in the context window: a limit of the run (like the clock), not a crash."""

    def __init__(self, prompt_tokens: int, max_tokens: int, n_ctx: int) -> None:
        super().__init__(f"prompt of {prompt_tokens} tokens + {max_tokens} to generate exceeds n_ctx={n_ctx}")
        self.prompt_tokens = prompt_tokens
        self.n_ctx = n_ctx


@runtime_checkable
class Backend(Protocol):
    """A served or embedded chat model."""

    name: str
    supports_native_tools: bool
    """Whether ``tools=`` reaches the model through its own template or API (else the harness prompts)."""

    def chat(
        self, messages: list[Message], tools: list[dict[str, Any]] | None, options: GenerationOptions
    ) -> ModelReply:
        """Answer a conversation; ``tools`` are OpenAI-style function schemas or None."""
        ...

    def reset(self) -> bool:
        """Forget any cached conversation state (KV cache); True if the backend could, False if not."""
        ...

    def fingerprint(self) -> dict[str, Any]:
        """Identity of what is served: weights hash or digest, quantisation, n_ctx, versions."""
        ...

    def close(self) -> None:
        """Free the model."""
        ...


def preflight(backend: Backend) -> None:
    """One short answer from the model, or a clear error before any trial is written."""
    reply = backend.chat(
        [{"role": "user", "content": "Reply with the single word OK."}],
        None,
        GenerationOptions(max_tokens=8, temperature=0.0),
    )
    if not reply.text.strip():
        raise BackendError("preflight: the model returned an empty answer to a trivial prompt")


class BackendClass(Protocol):
    """What a registered backend class declares besides the :class:`Backend` protocol of its instances."""

    in_process: bool
    """Whether the model runs inside this process (one trial at a time) rather than in a server (``concurrency``
    trials at once)."""
    engine: str
    """The inference engine that produces the replies, as other tools name it (``llama.cpp``, ``Ollama``)."""

    def __call__(self, *args: Any, **kwargs: Any) -> Backend:
        """Construct a backend from explicit arguments (tests and tools)."""
        ...

    def from_spec(self, model_id: str, spec: ModelSpec, weights: Path | None, **overrides: Any) -> Backend:
        """The backend that serves a configured model; ``weights`` is its verified GGUF file, if it has one;
        ``overrides`` are run options such as ``n_ctx`` and ``n_threads``."""
        ...


B = TypeVar("B", bound=BackendClass)
_REGISTRY: dict[str, BackendClass] = {}


def register_backend(name: str) -> Callable[[B], B]:
    """Class decorator that registers a backend class under ``name`` (the config's ``backend:`` value)."""

    def wrap(cls: B) -> B:
        _REGISTRY[name] = cls
        return cls

    return wrap


def backend_names() -> list[str]:
    """Names of the registered backends."""
    return sorted(_REGISTRY)


def backend_class(name: str) -> BackendClass:
    """The backend class registered as ``name``."""
    if name not in _REGISTRY:
        raise BackendError(f"unknown backend {name!r}; known: {', '.join(backend_names())}")
    return _REGISTRY[name]


def create_backend(name: str, **kwargs: Any) -> Backend:
    """Instantiate the backend registered as ``name`` from explicit arguments."""
    return backend_class(name)(**kwargs)
