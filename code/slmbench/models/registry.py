"""From a configured model to a live backend (embedded weights verified first) and its fingerprint."""

from __future__ import annotations

import os
from typing import Any

from slmbench.backends.base import Backend, backend_class
from slmbench.config import ModelSpec
from slmbench.models.weights import WeightsError, cache_dir, verify

PREFIX_CACHE_ENV = "SLMBENCH_PREFIX_CACHE"
"""Set to ``off`` to evaluate every prompt from its first token (records are the same either way)."""


def open_backend(model_id: str, spec: ModelSpec, **overrides: Any) -> Backend:
    """Create the backend that serves ``model_id``: its class (``spec.backend``) builds it from the spec, with its
    weights' sha256 checked before anything loads them (``overrides``: ``n_ctx``, ``n_threads``; an in-process
    model's saved prompt prefixes go to the cache folder unless ``$SLMBENCH_PREFIX_CACHE`` is ``off``)."""
    try:
        weights = verify(spec) if spec.weights is not None else None
    except WeightsError as exc:
        raise WeightsError(f"model {model_id}: {exc}") from None
    overrides.setdefault("prefix_cache", os.environ.get(PREFIX_CACHE_ENV, "on") != "off")
    overrides.setdefault("prefix_cache_dir", cache_dir() / "prefix-states")
    return backend_class(spec.backend).from_spec(model_id, spec, weights, **overrides)
