"""What crosses the wire to and from an OpenAI-compatible server, without the transport: the conversation and the
sampling options as the chat-completions API takes them, the reply as the harness records it (content and the
tool calls exactly as returned), a context-window refusal, and the identity the server reports about itself."""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from slmbench.backends.base import ContextOverflow, GenerationOptions, Message, ModelReply
from slmbench.backends.retry import TransientError

_CONTEXT_WORDS = re.compile(
    r"context (size|length|window)|maximum context|exceeds? the available context", re.I
)
_PROPS_KEYS = ("build_info", "model_path", "total_slots", "modalities")


class MalformedReply(TransientError):
    """The server answered 200 with a body that is not a chat completion (no choices, no message)."""


def one_line(text: object, limit: int = 300) -> str:
    """``text`` on one line (whitespace runs joined), cut at ``limit`` characters: for error messages."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def to_openai_messages(messages: list[Message]) -> list[dict[str, Any]]:
    """The harness's messages as the API takes them: an assistant's tool calls carry an id, ``type`` and their
    arguments as a JSON string (the history keeps them as objects); everything else goes as it is."""
    out: list[dict[str, Any]] = []
    for message in messages:
        converted: dict[str, Any] = {**message, "content": message.get("content") or ""}
        calls = message.get("tool_calls") or []
        if calls:
            converted["tool_calls"] = [_wire_call(call, i) for i, call in enumerate(calls, start=1)]
        out.append(converted)
    return out


def _wire_call(call: dict[str, Any], index: int) -> dict[str, Any]:
    function = call.get("function", {})
    arguments = function.get("arguments", {})
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments, ensure_ascii=False)
    return {
        "id": call.get("id") or f"call_{index}",
        "type": "function",
        "function": {"name": function.get("name", ""), "arguments": arguments},
    }


def request_options(options: GenerationOptions) -> dict[str, Any]:
    """Sampling and length options of one request; ``stop`` and ``logprobs`` only when set (an empty ``stop``
    keeps the server's own stop sequences)."""
    sent: dict[str, Any] = {
        "temperature": options.temperature,
        "top_p": options.top_p,
        "seed": options.seed,
        "max_tokens": options.max_tokens,
    }
    if options.stop:
        sent["stop"] = list(options.stop)
    if options.logprobs:
        sent["logprobs"] = True
    return sent


def to_model_reply(completion: Any, latency_s: float) -> ModelReply:
    """A chat completion as the harness records it: the content as text, the tool calls as the server returned
    them (arguments still the server's JSON string), token counts, the prompt tokens the server reused and the
    raw generated text where the server returns it (``generated_text``).

    Raises:
        MalformedReply: The body has no choice with a message (retried as a transient failure).
    """
    choices = getattr(completion, "choices", None) or [None]
    choice = choices[0]
    message = getattr(choice, "message", None)
    if message is None:
        raise MalformedReply(f"not a chat completion (no choices[0].message): {one_line(completion)}")
    calls = [call.model_dump(exclude_none=True) for call in message.tool_calls or []]
    usage = getattr(completion, "usage", None)
    details = getattr(usage, "prompt_tokens_details", None)
    cached = getattr(details, "cached_tokens", None)
    if cached is None:  # llama.cpp's server reports its prompt cache in `timings`
        cached = ((completion.model_extra or {}).get("timings") or {}).get("cache_n")
    logprobs = getattr(choice, "logprobs", None)
    return ModelReply(
        text=message.content or "",
        native_tool_calls=calls,
        prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
        completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
        cached_tokens=int(cached or 0),
        latency_s=latency_s,
        finish_reason=str(choice.finish_reason or ""),
        logprobs=[t.logprob for t in logprobs.content] if logprobs and logprobs.content else None,
        server_text=generated_text(completion),
    )


def generated_text(completion: Any) -> str | None:
    """The raw text the server generated, before its tool-call parser, where it returns it: llama.cpp's server
    does in ``__verbose.content`` when a request asks for it (``verbose: true``; ``response_fields: ["content"]``
    keeps only that field), else None."""
    verbose = (getattr(completion, "model_extra", None) or {}).get("__verbose")
    content = verbose.get("content") if isinstance(verbose, dict) else None
    return content if isinstance(content, str) else None


def context_overflow(body: object, message: str, max_tokens: int, num_ctx: int) -> ContextOverflow | None:
    """The refusal of a 400 answer that says the prompt does not fit the context window (llama.cpp's server:
    ``exceed_context_size_error`` with ``n_prompt_tokens`` and ``n_ctx``; vLLM: "maximum context length"), else
    None."""
    error = body.get("error", body) if isinstance(body, dict) else {}
    error = error if isinstance(error, dict) else {}
    if error.get("type") != "exceed_context_size_error" and not _CONTEXT_WORDS.search(message):
        return None
    return ContextOverflow(
        int(error.get("n_prompt_tokens") or 0), max_tokens, int(error.get("n_ctx") or num_ctx)
    )


def model_card(models: list[dict[str, Any]], served_model: str) -> dict[str, Any] | None:
    """The ``/v1/models`` entry of the served model (llama.cpp's server adds ``meta``: parameters, size,
    vocabulary, trained context), or None when the server does not list it."""
    return next((m for m in models if m.get("id") == served_model), None)


def template_takes_tools(props: Any) -> bool | None:
    """Whether the served chat template renders tools, as llama.cpp's ``/props`` says (``chat_template_caps``:
    its server drops the tools of a request whose template has no place for them), or None where unknown."""
    caps = props.get("chat_template_caps") if isinstance(props, dict) else None
    return bool(caps["supports_tools"]) if isinstance(caps, dict) and "supports_tools" in caps else None


def server_identity(props: Any, version: Any) -> dict[str, Any]:
    """What the server says about itself: llama.cpp's ``/props`` (build, served file, slots, context per slot,
    the chat template's sha256) and a ``/version`` endpoint's version (vLLM), where they exist."""
    out: dict[str, Any] = {}
    if isinstance(props, dict):
        out.update({key: props[key] for key in _PROPS_KEYS if key in props})
        settings = props.get("default_generation_settings")
        if isinstance(settings, dict) and "n_ctx" in settings:
            out["n_ctx_per_slot"] = settings["n_ctx"]
        template = props.get("chat_template")
        if isinstance(template, str):
            out["chat_template_sha256"] = hashlib.sha256(template.encode()).hexdigest()
    if isinstance(version, dict) and "version" in version:
        out["version"] = str(version["version"])
    return out
