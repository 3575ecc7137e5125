"""What crosses the wire to and from an Ollama server, without the transport: the conversation and the options as
``/api/chat`` takes them, the tool schema keys the client drops, the reply as the harness records it, and the
identity the server reports about the model (``show``, ``tags``, ``ps``)."""

from __future__ import annotations

import hashlib
import json
import logging
from importlib import metadata
from typing import Any

import ollama

from slmbench.backends.base import GenerationOptions, Message, ModelReply

logger = logging.getLogger(__name__)

RESIDENT_KEYS = ("size_bytes", "size_vram_bytes", "context_length_loaded")
"""The identity keys only a loaded model has (``ps``)."""


def to_ollama_messages(messages: list[Message]) -> list[dict[str, Any]]:
    """Convert OpenAI-style chat messages to the shape Ollama's ``/api/chat`` accepts.

    Assistant ``tool_calls`` keep only ``function.name`` and ``function.arguments`` (a JSON string is
    parsed to an object; one that does not parse is passed as ``{"_raw_arguments": text}``); a tool
    message's ``name`` becomes ``tool_name``.
    """
    out: list[dict[str, Any]] = []
    for message in messages:
        converted: dict[str, Any] = {"role": message["role"], "content": message.get("content") or ""}
        calls = message.get("tool_calls") or []
        if calls:
            converted["tool_calls"] = [
                {"function": {"name": c["function"]["name"], "arguments": _arguments(c["function"])}}
                for c in calls
            ]
        tool_name = message.get("tool_name") or (message.get("name") if message["role"] == "tool" else None)
        if tool_name:
            converted["tool_name"] = tool_name
        out.append(converted)
    return out


def _arguments(function: dict[str, Any]) -> dict[str, Any]:
    args = function.get("arguments", {})
    if isinstance(args, str):
        try:
            parsed = json.loads(args) if args.strip() else {}
        except json.JSONDecodeError:
            parsed = None
        if not isinstance(parsed, dict):
            logger.debug("tool-call arguments are not a JSON object; sent as _raw_arguments: %r", args)
            return {"_raw_arguments": args}
        return parsed
    return dict(args)


def to_ollama_options(options: GenerationOptions, num_ctx: int) -> dict[str, Any]:
    """Map generation options to Ollama's ``options``; ``stop`` is sent only when set, so an empty
    tuple keeps the model's own stop sequences from its Modelfile."""
    mapped: dict[str, Any] = {
        "num_ctx": num_ctx,
        "seed": options.seed,
        "temperature": options.temperature,
        "top_p": options.top_p,
        "num_predict": options.max_tokens,
    }
    if options.stop:
        mapped["stop"] = list(options.stop)
    return mapped


def dropped_schema_keys(tool: dict[str, Any]) -> list[str]:
    """JSON-Schema keys of an OpenAI tool schema that the ``ollama`` client drops before sending.

    The client validates tools against its own narrow model (per property: type, items, description,
    enum), so e.g. ``minimum``, ``default``, ``additionalProperties`` and nested ``properties`` never
    reach the server.
    """
    sent = ollama.Tool.model_validate(tool).model_dump(exclude_none=True, by_alias=True)
    return _missing_paths(tool, sent, "")


def _missing_paths(want: Any, got: Any, path: str) -> list[str]:
    if not isinstance(want, dict):
        return []
    if not isinstance(got, dict):
        return [path or "."]
    missing: list[str] = []
    for key, value in want.items():
        sub = f"{path}.{key}" if path else key
        missing += [sub] if key not in got else _missing_paths(value, got[key], sub)
    return missing


def to_model_reply(response: ollama.ChatResponse, latency_s: float) -> ModelReply:
    """Map Ollama's chat response to a ModelReply (tool calls in OpenAI shape, arguments as objects)."""
    message = response.message
    calls = [
        {"type": "function", "function": {"name": c.function.name, "arguments": dict(c.function.arguments)}}
        for c in message.tool_calls or []
    ]
    logprobs = [lp.logprob for lp in response.logprobs] if response.logprobs else None
    return ModelReply(
        text=message.content or "",
        native_tool_calls=calls,
        prompt_tokens=response.prompt_eval_count or 0,
        completion_tokens=response.eval_count or 0,
        latency_s=latency_s,
        finish_reason=response.done_reason or "",
        logprobs=logprobs,
    )


def static_identity(
    show: ollama.ShowResponse,
    tags: ollama.ListResponse,
    server_version: str | None,
    model: str,
    host: str,
    num_ctx: int,
) -> dict[str, Any]:
    """The served model's identity from ``show`` and ``tags`` (and the server's version)."""
    details = show.details
    info = dict(show.modelinfo or {})
    arch = info.get("general.architecture")
    license_text = (show.license or "").strip()
    return {
        "backend": "ollama",
        "client_version": metadata.version("ollama"),
        "server_version": server_version,
        "host": host,
        "model": model,
        "digest": next((m.digest for m in tags.models if same_model(m.model, model)), None),
        "family": details.family if details else None,
        "format": details.format if details else None,
        "parameter_size": details.parameter_size if details else None,
        "quantization": details.quantization_level if details else None,
        "context_length_trained": info.get(f"{arch}.context_length") if arch else None,
        "num_ctx": num_ctx,
        "license_head": license_text.splitlines()[0][:200] if license_text else None,
        "template_sha256": hashlib.sha256((show.template or "").encode()).hexdigest(),
        "parameters": show.parameters,
        "capabilities": list(show.capabilities or []),
    }


def resident_identity(ps: ollama.ProcessResponse, model: str) -> dict[str, Any] | None:
    """The loaded model's size in memory and context (``RESIDENT_KEYS``), or None when it is not loaded."""
    loaded = next((m for m in ps.models if same_model(m.model or m.name, model)), None)
    if loaded is None:
        return None
    return {
        "size_bytes": int(loaded.size) if loaded.size is not None else None,
        "size_vram_bytes": int(loaded.size_vram) if loaded.size_vram is not None else None,
        "context_length_loaded": loaded.context_length,
    }


def same_model(listed: str | None, wanted: str) -> bool:
    """Whether a listed model name is ``wanted``; a name without a tag means ``:latest``."""
    if not listed:
        return False

    def norm(name: str) -> str:
        return name if ":" in name.rsplit("/", 1)[-1] else f"{name}:latest"

    return norm(listed) == norm(wanted)
