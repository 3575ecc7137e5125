"""The embedded default backend: llama-cpp-python in-process on the CPU, as the one portable build.

One loaded model per process (a module-level cache); the conversation's prompt is rendered with the GGUF's own
chat template (or a documented plain format for base models) and tokenised here, so the KV cache of the
previous turn is reused for the shared prefix (llama.cpp's prefix matching) and the reuse is measured. Prompts are
evaluated in blocks of ``PREFIX_BLOCK`` tokens at fixed positions, so a trial's first request may start from a
saved state of a prefix that an earlier trial evaluated (``prefix_cache``) with identical arithmetic. Each
generated token's log-probability under the model (before temperature) is kept.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from slmbench.backends.base import (
    BackendError,
    ContextOverflow,
    GenerationOptions,
    Message,
    ModelReply,
    register_backend,
)
from slmbench.backends.llamacpp_build import cpu, installed_build
from slmbench.backends.llamacpp_state import StateKeeper, common_prefix, sampled_logprobs
from slmbench.backends.prefix_cache import PREFIX_BLOCK, PrefixCache
from slmbench.backends.settings import ModelEntry, WeightsSpec

log = logging.getLogger(__name__)


def usable_cpus() -> int:
    """The CPUs this process may run on: a SLURM job's allocation (its CPU affinity), else the machine's."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # no sched_getaffinity (macOS)
        return os.cpu_count() or 1


PLAIN_FORMAT_DOC = """Plain chat format for base models (no chat template): each message becomes a block
'<Role>: <content>' separated by blank lines (System, User, Assistant, Tool), and the prompt ends with
'Assistant:'. Generation stops at a new '\\nUser:' or '\\nTool:' block."""

_PLAIN_ROLES = {"system": "System", "user": "User", "assistant": "Assistant", "tool": "Tool"}
_PLAIN_STOPS = ("\nUser:", "\nTool:", "\nSystem:")


def render_plain(messages: list[Message]) -> str:
    """Render messages in the plain format described in ``PLAIN_FORMAT_DOC``."""
    blocks = [f"{_PLAIN_ROLES.get(m['role'], m['role'].title())}: {m.get('content') or ''}" for m in messages]
    return "\n\n".join(blocks) + "\n\nAssistant:"


@dataclass(frozen=True)
class _LoadKey:
    path: str
    n_ctx: int
    n_threads: int


_LOADED: dict[_LoadKey, Any] = {}


def _load(key: _LoadKey) -> Any:
    """Load a model once per process; a different model replaces the previous one."""
    if key in _LOADED:
        return _LOADED[key]
    try:
        from llama_cpp import Llama
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise BackendError("llama-cpp-python is not installed: run `make setup`") from exc
    for old in list(_LOADED):
        _LOADED.pop(old).close()
    if not Path(key.path).exists():
        raise BackendError(f"model file {key.path} is missing: run `slmbench models fetch`")
    try:
        installed_build()
    except RuntimeError as exc:
        raise BackendError(str(exc)) from None
    try:
        llm = Llama(
            model_path=key.path,
            n_ctx=key.n_ctx,
            n_threads=key.n_threads,
            n_threads_batch=key.n_threads,
            n_batch=PREFIX_BLOCK,
            n_ubatch=PREFIX_BLOCK,
            verbose=False,
        )
    except (ValueError, RuntimeError) as exc:
        raise BackendError(f"llama.cpp could not load {key.path}: {exc}") from exc
    _LOADED[key] = llm
    return llm


@functools.cache
def file_sha256(path: str, size: int, mtime_ns: int) -> str:
    """The sha256 of a model file (computed once per process for one size and modification time)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def gguf_chat_formatter(llm: Any, model_path: str | Path) -> Any:
    """A formatter for the GGUF's own chat template (with its BOS/EOS strings); an error for a base model."""
    template = llm.metadata.get("tokenizer.chat_template")
    if not template:
        raise BackendError(f"{model_path} has no chat template; set chat_format: plain for a base model")
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    eos = llm.detokenize([llm.token_eos()]).decode("utf-8", errors="ignore")
    bos = llm.detokenize([llm.token_bos()]).decode("utf-8", errors="ignore")
    return Jinja2ChatFormatter(template=template, eos_token=eos, bos_token=bos)


class LlamaCppSettings(ModelEntry):
    """A GGUF file run in this process: its weights (pinned by sha256) and how its prompts are rendered."""

    backend: Literal["llamacpp"]
    weights: WeightsSpec = Field(description="the GGUF file: PyPI packages or a file of your own")
    chat_format: str | None = Field(
        default=None, description="None: the GGUF's own chat template; 'plain' for base models"
    )


@register_backend(
    name="llamacpp",
    in_process=True,
    describes="llama.cpp in the harness process",
    engine="llama.cpp",
    labels="logprobs",
)
class LlamaCppBackend:
    """A GGUF model served in-process by llama-cpp-python."""

    name = "llamacpp"
    settings = LlamaCppSettings

    @classmethod
    def from_spec(
        cls, model_id: str, spec: LlamaCppSettings, weights: Path | None, **overrides: Any
    ) -> LlamaCppBackend:
        """The configured model's verified GGUF, loaded with its chat format (``n_ctx``, ``n_threads``,
        ``prefix_cache`` and ``prefix_cache_dir`` overridable)."""
        if weights is None:
            raise BackendError(f"{model_id}: backend llamacpp needs `weights` (a GGUF file) in config.yaml")
        return cls(
            model_path=weights,
            n_ctx=overrides.get("n_ctx") or spec.n_ctx,
            n_threads=overrides.get("n_threads"),
            chat_format=spec.chat_format,
            model_id=model_id,
            prefix_cache=overrides.get("prefix_cache", True),
            prefix_cache_dir=overrides.get("prefix_cache_dir"),
        )

    def __init__(
        self,
        model_path: str | Path,
        n_ctx: int = 4096,
        n_threads: int | None = None,
        chat_format: str | None = None,
        model_id: str = "",
        extra_fingerprint: dict[str, Any] | None = None,
        prefix_cache: bool = True,
        prefix_cache_dir: Path | None = None,
    ) -> None:
        self.model_id = model_id or Path(model_path).stem
        self._key = _LoadKey(str(model_path), n_ctx, n_threads or usable_cpus())
        self._llm = _load(self._key)
        self._states: StateKeeper | None = None
        if prefix_cache:
            stat = Path(model_path).stat()
            identity = {
                "model_sha256": file_sha256(str(model_path), stat.st_size, stat.st_mtime_ns),
                "build": installed_build()["identity"],
                "n_ctx": n_ctx,
                "block": PREFIX_BLOCK,
            }
            folder = None if prefix_cache_dir is None else prefix_cache_dir / identity["model_sha256"][:16]
            self._states = StateKeeper(self._llm, PrefixCache(identity, folder))
        self._chat_format = chat_format
        self._formatter: Any = None
        self._extra = extra_fingerprint or {}
        template = self._llm.metadata.get("tokenizer.chat_template")
        if chat_format is None:
            self._formatter = gguf_chat_formatter(self._llm, model_path)
        self.supports_native_tools = bool(template and "tools" in template and chat_format is None)

    def render(self, messages: list[Message], tools: list[dict[str, Any]] | None) -> tuple[str, list[str]]:
        """The exact prompt text and stop strings for a conversation."""
        if self._formatter is None:
            return render_plain(messages), list(_PLAIN_STOPS)
        response = self._formatter(messages=messages, tools=tools if self.supports_native_tools else None)
        return response.prompt, [s for s in (response.stop or []) if s]

    def chat(
        self, messages: list[Message], tools: list[dict[str, Any]] | None, options: GenerationOptions
    ) -> ModelReply:
        """Generate the assistant's next message, reusing the KV cache of the shared prompt prefix."""
        return self._complete(messages, tools, options)

    def teacher_forced(
        self, messages: list[Message], tools: list[dict[str, Any]] | None, text: str, stopped: bool
    ) -> list[float]:
        """The log-probability of each token of a recorded reply ``text`` given the conversation (teacher
        forcing): the prompt is evaluated and the reply decoded token by token exactly as ``chat`` does, but
        each sampled token is the reply's next one (then, where the reply ``stopped``, the end-of-generation
        token, whose log-probability is the last value)."""
        llm = self._llm
        forced = [*llm.tokenize(text.encode("utf-8"), add_bos=False, special=True)]
        queue = iter([*forced, llm.token_eos()] if stopped else forced)

        def next_token(*args: Any, idx: int | None = None, **kwargs: Any) -> int:
            return next(queue)

        llm.sample = next_token
        try:
            options = GenerationOptions(max_tokens=len(forced) + int(stopped), logprobs=True)
            reply = self._complete(messages, tools, options)
        finally:
            if "sample" in vars(llm):
                del llm.sample
        return reply.logprobs or []

    def _complete(
        self, messages: list[Message], tools: list[dict[str, Any]] | None, options: GenerationOptions
    ) -> ModelReply:
        prompt, stops = self.render(messages, tools)
        llm = self._llm
        tokens = llm.tokenize(prompt.encode("utf-8"), add_bos=self._formatter is None, special=True)
        if len(tokens) + options.max_tokens > self._key.n_ctx:
            raise ContextOverflow(len(tokens), options.max_tokens, self._key.n_ctx)
        cached = llm.longest_token_prefix(llm._input_ids.tolist(), tokens)
        started = time.perf_counter()
        restored = 0
        if self._states is not None:
            restored = self._states.prepare(tokens, self._save_points(messages, tools, tokens))
        with sampled_logprobs(llm) as token_logprobs:
            out = llm.create_completion(
                tokens,
                max_tokens=options.max_tokens,
                temperature=options.temperature,
                top_p=options.top_p,
                seed=options.seed,
                stop=[*stops, *options.stop],
            )
        latency = time.perf_counter() - started
        choice = out["choices"][0]  # type: ignore[index]
        usage = out.get("usage", {})  # type: ignore[union-attr]
        return ModelReply(
            text=choice.get("text", ""),
            prompt_tokens=int(usage.get("prompt_tokens", len(tokens))),
            completion_tokens=int(usage.get("completion_tokens", 0)),
            cached_tokens=int(cached),
            latency_s=latency,
            finish_reason=str(choice.get("finish_reason") or ""),
            logprobs=token_logprobs if options.logprobs else None,
            restored_tokens=restored,
        )

    def _save_points(
        self, messages: list[Message], tools: list[dict[str, Any]] | None, tokens: list[int]
    ) -> list[int]:
        """Where a prefix state is worth saving: the end of the system prompt, of the system prompt with the tools,
        and of the whole request but its last block (what samples and fault runs of one task share)."""
        points = [len(tokens) - 1]
        if messages and messages[0]["role"] == "system":
            for head_tools in (None, tools):
                head, _ = self.render(messages[:1], head_tools)
                head_tokens = self._llm.tokenize(
                    head.encode("utf-8"), add_bos=self._formatter is None, special=True
                )
                points.append(common_prefix(head_tokens, tokens))
        return points

    def tokens(self, text: str) -> list[int]:
        """The model's tokens of ``text`` (no BOS, special tokens as text)."""
        return list(self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def reset(self) -> bool:
        """Empty the KV cache: the next prompt is evaluated from its first token."""
        self._llm.reset()
        return True

    def fingerprint(self) -> dict[str, Any]:
        """Backend identity for every trial record."""
        import llama_cpp

        return {
            "backend": self.name,
            "backend_version": llama_cpp.__version__,
            "model_id": self.model_id,
            "weights_path": self._key.path,
            "n_ctx": self._llm.n_ctx(),
            "n_threads": self._key.n_threads,
            "prompt_block": PREFIX_BLOCK,
            "build": installed_build(),
            "chat_format": self._chat_format or "gguf-template",
            "native_tools": self.supports_native_tools,
            "cpu": cpu(),
            **self._extra,
        }

    def close(self) -> None:
        """Free the model if this backend loaded it."""
        llm = _LOADED.pop(self._key, None)
        if llm is not None:
            llm.close()
