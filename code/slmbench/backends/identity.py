"""What a trial's fingerprint says ran it, read alike for every backend: the file the replies came from (its
sha256), whether the tools went to the model natively, what served it (the server as it names itself, its build,
its address), the quantisation and how many trials were in flight. The paper states these per model from the
records, never from the backend's name."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

SERVER_NAMES: Mapping[str, str] = {
    "llamacpp": "llama-server",
    "vllm": "vLLM",
    "sglang": "SGLang",
}
"""Servers by the owner their ``/v1/models`` entry reports (``owned_by``), as the paper names them (llama.cpp's
server as the serving comparison names the server it starts: ``vocab.SERVERS``)."""


@dataclass(frozen=True)
class RunIdentity:
    """What one trial's fingerprint and settings record about what ran it (None: not recorded)."""

    backend: str | None
    file_sha256: str | None
    """The sha256 of the weights file: the pinned file's, or the file a server reports it serves."""
    native_tools: bool | None
    """Whether the tools went to the model as the API's or template's own (else the harness's prompt lists them)."""
    served_by: str | None
    """The serving software as an OpenAI-compatible server names itself (``llama-server``; None:
    the backend's declared engine says what served it)."""
    server_build: str | None
    endpoint: str | None
    """Where the server answered (a base URL or host), for a served model."""
    quantisation: str | None
    concurrency: int


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _text(value: Any) -> str | None:
    return str(value) if value not in (None, "") else None


def run_identity(fingerprint: Mapping[str, Any], settings: Mapping[str, Any]) -> RunIdentity:
    """The identity a trial record holds (``fingerprint``, ``provenance.settings``)."""
    backend = _mapping(fingerprint.get("backend"))
    server = _mapping(backend.get("server"))
    card = _mapping(backend.get("model_card"))
    owner = _text(card.get("owned_by"))
    served_by = SERVER_NAMES.get(owner, owner) if owner else None
    native = backend.get("native_tools")
    return RunIdentity(
        backend=_text(backend.get("backend")),
        file_sha256=_text(fingerprint.get("weights_sha256")) or _text(server.get("model_sha256")),
        native_tools=bool(native) if isinstance(native, bool) else None,
        served_by=served_by,
        server_build=_text(server.get("build_info")) or _text(backend.get("server_version")),
        endpoint=_text(backend.get("base_url")) or _text(backend.get("host")),
        quantisation=_text(fingerprint.get("quantisation"))
        or _text(backend.get("quantization"))
        or _text(_mapping(card.get("meta")).get("ftype")),
        concurrency=int(settings.get("concurrency") or 1),
    )


def served_twins(models: Iterable[tuple[str, bool, str | None]]) -> tuple[tuple[str, str], ...]:
    """The pairs of one file run in-process and served: for each served model (``(name, in_process, sha256)``
    with ``in_process`` false) whose file an in-process model ran, ``(that in-process model, the served one)``; the
    in-process model first by name where several ran the file. In the served models' order."""
    listed = list(models)
    out = []
    for name, in_process, sha in listed:
        if in_process or not sha:
            continue
        twins = sorted(other for other, inside, same in listed if inside and same == sha)
        if twins:
            out.append((twins[0], name))
    return tuple(out)
