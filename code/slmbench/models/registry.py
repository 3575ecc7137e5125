"""From a configured model to a live backend (embedded weights verified first) and its fingerprint."""

from __future__ import annotations

from typing import Any

from slmbench.backends.base import Backend, create_backend
from slmbench.config import ModelSpec
from slmbench.models.weights import verify


def open_backend(model_id: str, spec: ModelSpec, **overrides: Any) -> Backend:
    """Create the backend that serves ``model_id`` (weights hash checked before loading)."""
    from slmbench.backends import load_backends

    load_backends()
    if spec.backend == "llamacpp":
        path = verify(spec)
        return create_backend(
            "llamacpp",
            model_path=path,
            n_ctx=overrides.get("n_ctx", spec.n_ctx),
            n_threads=overrides.get("n_threads"),
            chat_format=spec.chat_format,
            model_id=model_id,
        )
    return create_backend(
        "ollama", model=spec.ollama_tag or model_id, num_ctx=overrides.get("n_ctx", spec.n_ctx)
    )
