"""The model-backend seam: one Protocol, a registry by name, and the shapes that cross it.

A backend class registers where it is defined, and its decorator declares its facts as literals, readable from
the source without importing the backend (``registration``): ``@register_backend(name="openai", in_process=False,
describes="an OpenAI-compatible server", labels=None)``. ``in_process`` says whether the model runs inside the
harness's process (one trial at a time, its weights in this process's memory) or behind a server
(``concurrency`` trials at once); ``describes`` is how the paper names where the model ran; ``labels`` how the
eligibility study scores a label with it (``logprobs``: token log-probabilities in this process; ``ollama``:
Ollama's own API; None: it cannot). The class itself declares its settings model (``settings``: the fields of its
config.yaml entry). Config, resources and templates ask these declarations and never compare a backend's name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

from slmbench.backends.settings import ModelEntry
from slmbench.registration import Registry

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
    """What a registered backend class declares besides the :class:`Backend` protocol of its instances (its
    other facts are its decorator's: :class:`BackendFacts`)."""

    @property
    def settings(self) -> type[ModelEntry]:
        """Its settings model: the fields of a config.yaml entry with ``backend: <its name>``."""
        ...

    def __call__(self, *args: Any, **kwargs: Any) -> Backend:
        """Construct a backend from explicit arguments (tests and tools)."""
        ...

    def from_spec(self, model_id: str, spec: Any, weights: Path | None, **overrides: Any) -> Backend:
        """The backend that serves a configured model (``spec``: an instance of its ``settings``); ``weights`` is
        its verified GGUF file, if it has one; ``overrides`` are run options such as ``n_ctx`` and ``n_threads``."""
        ...


LabelScoring = Literal["logprobs", "ollama"]
"""How the eligibility study scores a label with a backend's model (``slmbench.eligibility``)."""


@dataclass(frozen=True)
class BackendFacts:
    """What a backend's decorator declares (read from the source: nothing is imported)."""

    name: str
    in_process: bool
    describes: str
    engine: str
    """The inference engine that produces the replies, as other tools name it (``llama.cpp``, ``Ollama``)."""
    labels: LabelScoring | None = None


register_backend: Registry[BackendClass] = Registry(
    __package__ or "", Path(__file__).parent, "register_backend", named_by="name"
)
"""The decorator of a backend class: ``@register_backend(name=..., in_process=..., describes=..., engine=...,
labels=...)``."""


class UnknownBackendError(BackendError):
    """No backend is registered under a name."""


def backend_names() -> list[str]:
    """Names of the registered backends (sorted)."""
    return sorted(register_backend.declared)


def backend_facts(name: str) -> BackendFacts:
    """The facts backend ``name`` declares.

    Raises:
        UnknownBackendError: No backend of that name.
    """
    if name not in register_backend.declared:
        raise UnknownBackendError(f"unknown backend {name!r}; known: {', '.join(backend_names())}")
    return BackendFacts(**register_backend.declared[name].arguments)


def backend_class(name: str) -> BackendClass:
    """The backend class registered as ``name`` (its module imported).

    Raises:
        UnknownBackendError: No backend of that name.
    """
    backend_facts(name)
    return register_backend.get(name)


def backend_settings(name: str) -> type[ModelEntry]:
    """The settings model of backend ``name`` (its module imported: only the backends a study names are).

    Raises:
        UnknownBackendError: No backend of that name.
    """
    return backend_class(name).settings


def create_backend(name: str, **kwargs: Any) -> Backend:
    """Instantiate the backend registered as ``name`` from explicit arguments."""
    return backend_class(name)(**kwargs)
