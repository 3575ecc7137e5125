"""What every trial record carries about where it was produced: model, backend, versions, commit, machine."""

from __future__ import annotations

import functools
import importlib.metadata
import platform
import subprocess
from pathlib import Path
from typing import Any

from slmbench.backends.base import UnknownBackendError, backend_facts
from slmbench.config import ModelSpec

_PACKAGES = ("slmbench", "llama_cpp_python", "ollama", "jsonschema", "pydantic", "rank_bm25")


@functools.cache
def git_commit(cwd: str = ".") -> str:
    """The current commit (with ``-dirty`` when the tree has uncommitted changes), or ``unknown``."""
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=cwd, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"], cwd=cwd, capture_output=True, text=True
        ).stdout.strip()
        return commit + ("-dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


@functools.cache
def package_versions() -> dict[str, str]:
    """Installed versions of the packages a result depends on."""
    versions: dict[str, str] = {}
    for name in _PACKAGES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = "absent"
    return versions


@functools.cache
def machine() -> dict[str, str]:
    """CPU model and accelerator (none: CPU only for the embedded backend)."""
    cpu = platform.processor()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text(errors="ignore").splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    return {"cpu": cpu, "arch": platform.machine(), "gpu": "none", "python": platform.python_version()}


NATIVE_BUILD = "native/"
"""The build label of a record without a build identity: llama.cpp compiled for the CPU it ran on, named by it."""


def _served(name: object) -> bool:
    """Whether the backend ``name`` (as a fingerprint records it) sends requests to a server."""
    try:
        return isinstance(name, str) and not backend_facts(name).in_process
    except UnknownBackendError:
        return False


def build_of(fingerprint: dict[str, Any], serving: dict[str, Any] | None = None) -> str | None:
    """The build a trial ran on: the identity of the portable build its backend (or, for a served trial, the server
    the runner started: ``serving``) recorded, else ``native/<CPU>`` (a record from before the portable build:
    llama.cpp compiled for that host's own CPU). Trials pair as "the same machine" only within one build."""
    backend = fingerprint.get("backend") or {}
    build = ((serving or {}).get("build") or backend.get("build")) or {}
    if build.get("identity"):
        return str(build["identity"])
    if serving is None and _served(backend.get("backend")):
        return None  # a server of the user's: it ran on its own build, which the client cannot name
    cpu = (fingerprint.get("machine") or {}).get("cpu")
    return None if cpu is None else f"{NATIVE_BUILD}{cpu}"


def trial_fingerprint(
    model_id: str, spec: ModelSpec | None, backend_fp: dict[str, Any], temperature: float, seed: int
) -> dict[str, Any]:
    """The fingerprint stored in a trial record."""
    return {
        "model_id": model_id,
        "weights_sha256": spec.weights.sha256 if spec and spec.weights else None,
        "quantisation": spec.quantisation if spec else None,
        "params_b": spec.params_b if spec else None,
        "instruct": spec.instruct if spec else None,
        "backend": backend_fp,
        "n_ctx": backend_fp.get("n_ctx"),
        "packages": package_versions(),
        "git_commit": git_commit(),
        "machine": machine(),
        "temperature": temperature,
        "seed": seed,
    }
