"""From a configured model to a live backend (embedded weights verified first) and its fingerprint."""

from __future__ import annotations

from typing import Any

from slmbench.backends.base import Backend, backend_class
from slmbench.config import ModelSpec
from slmbench.models.weights import WeightsError, verify


def open_backend(model_id: str, spec: ModelSpec, **overrides: Any) -> Backend:
    """Create the backend that serves ``model_id``: its class (``spec.backend``) builds it from the spec, with its
    weights' sha256 checked before anything loads them (``overrides``: ``n_ctx``, ``n_threads``)."""
    try:
        weights = verify(spec) if spec.weights is not None else None
    except WeightsError as exc:
        raise WeightsError(f"model {model_id}: {exc}") from None
    return backend_class(spec.backend).from_spec(model_id, spec, weights, **overrides)
