"""open_backend: the configured backend class builds the backend from the spec; your own GGUF file is checked by
its sha256 before anything loads it, with a one-line error naming the model and the file."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest

from slmbench.backends import base
from slmbench.config import ModelSpec
from slmbench.models.registry import open_backend
from slmbench.models.weights import WeightsError, fetch, verify, weights_path


def _own(path: Path, sha256: str) -> ModelSpec:
    return ModelSpec.model_validate(
        {
            "backend": "llamacpp",
            "params_b": 0.1,
            "instruct": True,
            "weights": {"path": str(path), "sha256": sha256},
        }
    )


class _Recorded:
    """A backend class that records how it was built (registered in place of a real one)."""

    in_process = False
    built: list[tuple[str, ModelSpec, Path | None, dict[str, Any]]] = []

    @classmethod
    def from_spec(cls, model_id: str, spec: ModelSpec, weights: Path | None, **overrides: Any) -> Any:
        cls.built.append((model_id, spec, weights, overrides))
        return cls()


def test_the_backend_class_builds_the_backend_with_the_verified_weights(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gguf = tmp_path / "mine.gguf"
    gguf.write_bytes(b"GGUF not really")
    spec = _own(gguf, hashlib.sha256(gguf.read_bytes()).hexdigest())
    monkeypatch.setitem(base.register_backend._registered, "llamacpp", (_Recorded, {}))
    backend = open_backend("mine", spec, n_ctx=512)
    assert isinstance(backend, _Recorded)
    (built,) = _Recorded.built
    assert built[:3] == ("mine", spec, gguf) and built[3]["n_ctx"] == 512
    assert built[3]["prefix_cache"] is True  # saved prompt prefixes, unless SLMBENCH_PREFIX_CACHE=off


def test_own_weights_missing_is_one_line_naming_model_and_file(tmp_path: Path) -> None:
    spec = _own(tmp_path / "absent.gguf", "0" * 64)
    with pytest.raises(WeightsError) as info:
        open_backend("mine", spec)
    assert (
        str(info.value)
        == f"model mine: {tmp_path / 'absent.gguf'} (weights.path in config.yaml) is missing or not a file"
    )


def test_own_weights_with_a_wrong_hash_are_refused_before_loading(tmp_path: Path) -> None:
    gguf = tmp_path / "mine.gguf"
    gguf.write_bytes(b"GGUF changed")
    actual = hashlib.sha256(gguf.read_bytes()).hexdigest()
    with pytest.raises(WeightsError) as info:
        open_backend("mine", _own(gguf, "0" * 64))
    assert str(info.value) == (
        f"model mine: {gguf}: sha256 {actual} does not match the pinned {'0' * 64} in config.yaml"
    )


def test_own_weights_path_expands_home_and_fetch_only_verifies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"GGUF")
    spec = _own(Path("~/m.gguf"), hashlib.sha256(b"GGUF").hexdigest())
    assert weights_path(spec) == gguf
    assert fetch(spec) == verify(spec) == gguf  # nothing is installed for a file of your own
