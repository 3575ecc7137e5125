"""The models of a study: each entry is validated by the settings model its backend declares
(``slmbench.backends``), so a backend's fields are its own and the config never names a backend."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from slmbench.backends import ModelEntry, UnknownBackendError, WeightsSpec, backend_names, backend_settings

ModelSpec = ModelEntry
"""One model of the study: an instance of its backend's settings model."""

__all__ = ["ModelSpec", "WeightsSpec", "model_errors", "validated_models"]

FieldError = tuple[tuple[str | int, ...], str]
"""A field's path in config.yaml and what is wrong with it."""


def _names(choices: list[str]) -> str:
    quoted = [f"'{c}'" for c in choices]
    return ", ".join(quoted[:-1]) + f" or {quoted[-1]}" if len(quoted) > 1 else quoted[0]


def model_errors(name: str, entry: Any) -> tuple[ModelEntry | None, list[FieldError]]:
    """Model ``name``'s entry validated by its backend's settings model, or the errors (path below ``models``)."""
    where: tuple[str | int, ...] = ("models", name)
    if not isinstance(entry, dict):
        return None, [(where, "Input should be a valid dictionary")]
    backend = entry.get("backend")
    if backend is None:
        return None, [((*where, "backend"), "Field required")]
    try:
        settings = backend_settings(str(backend))
    except UnknownBackendError:
        return None, [((*where, "backend"), f"{backend!r} is not a backend: use {_names(backend_names())}")]
    try:
        return settings.model_validate(entry), []
    except ValidationError as exc:
        return None, [((*where, *err["loc"]), err["msg"]) for err in exc.errors()]


def validated_models(models: Any) -> tuple[Any, list[FieldError]]:
    """Every entry of ``models`` validated by its backend's settings model (the mapping as given when it is not
    one: the study's own validation says so), with the errors of all of them."""
    if not isinstance(models, dict):
        return models, []
    out: dict[str, ModelEntry] = {}
    errors: list[FieldError] = []
    for name, entry in models.items():
        spec, found = model_errors(str(name), entry)
        errors += found
        if spec is not None:
            out[str(name)] = spec
    return out, errors
