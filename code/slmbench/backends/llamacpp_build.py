"""The one portable build of llama.cpp, and the build identity every in-process record carries.

llama.cpp compiled for each machine's own CPU runs other kernels on other hosts, and greedy replies then differ
(a host with AVX-512 against one without). Every host of this project builds llama-cpp-python and llama-server
with the same fixed x86-64 instruction set instead: AVX2, FMA, F16C and BMI2, no native detection, no runtime
choice among CPU variants, no AVX-512 and no AMX (whose kernel also segfaults, ggml-org/llama.cpp#20824).

``python -m slmbench.backends.llamacpp_build`` prints the CMake arguments; envs/install_llamacpp.sh and
envs/build_llama_server.sh build with them, so the flags are declared here once.
"""

from __future__ import annotations

import functools
import hashlib
import json
import platform
import re
from pathlib import Path
from typing import Any

LLAMA_CPP_PYTHON_VERSION = "0.3.36"
"""The pinned llama-cpp-python release; its vendored llama.cpp is also the source of llama-server."""

PORTABLE_CMAKE_ARGS: tuple[str, ...] = (
    "-DGGML_NATIVE=OFF",
    "-DGGML_CPU_ALL_VARIANTS=OFF",
    "-DGGML_BACKEND_DL=OFF",
    "-DGGML_SSE42=ON",
    "-DGGML_AVX=ON",
    "-DGGML_AVX2=ON",
    "-DGGML_FMA=ON",
    "-DGGML_F16C=ON",
    "-DGGML_BMI2=ON",
    "-DGGML_AVX_VNNI=OFF",
    "-DGGML_AVX512=OFF",
    "-DGGML_AVX512_VBMI=OFF",
    "-DGGML_AVX512_VNNI=OFF",
    "-DGGML_AVX512_BF16=OFF",
    "-DGGML_AMX_TILE=OFF",
    "-DGGML_AMX_INT8=OFF",
    "-DGGML_AMX_BF16=OFF",
)
"""The fixed instruction set: what every x86-64 host of this project has (x86-64-v3)."""

FORBIDDEN_KERNELS = ("AVX512", "AVX_VNNI", "AMX")
"""Kernels that the portable build never compiles in: llama.cpp's system info naming one means a native build."""

BUILD_STAMP = "slmbench-llamacpp-build.json"
"""Written beside the installed llama_cpp package by envs/install_llamacpp.sh: the arguments it was built with."""


def cmake_args() -> str:
    """The CMake arguments of the portable build, as one shell word list."""
    return " ".join(PORTABLE_CMAKE_ARGS)


def kernels_of(system_info: str) -> list[str]:
    """The CPU features llama.cpp reports as compiled in (``NAME = 1`` pairs of its system info)."""
    return sorted(name for name, value in re.findall(r"([A-Z0-9_]+) = (\d+)", system_info) if value != "0")


@functools.cache
def cpu() -> dict[str, Any]:
    """This machine's CPU model name and flags (from /proc/cpuinfo where it exists)."""
    fields: dict[str, str] = {}
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text(errors="ignore").splitlines():
            key, _, value = line.partition(":")
            fields.setdefault(key.strip(), value.strip())
    model = fields.get("model name") or platform.processor() or platform.machine()
    flags = fields.get("flags", "")
    return {"model": model, "flags": sorted(flags.split())}


def build_identity(version: str, flags: str, kernels: list[str]) -> str:
    """A short hash naming the build: the library version, its compile flags and the kernels compiled in."""
    text = json.dumps({"version": version, "flags": flags, "kernels": kernels}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@functools.cache
def installed_build() -> dict[str, Any]:
    """The installed llama-cpp-python: version, compile flags, kernels compiled in, and its build identity.

    Raises:
        RuntimeError: llama-cpp-python is a native build (its system info names a kernel the portable build never
            compiles in), so its greedy replies are this host's own; rebuild with ``make setup``.
    """
    import llama_cpp

    system_info = llama_cpp.llama_print_system_info().decode("utf-8", errors="replace").strip()
    stamp = Path(llama_cpp.__file__).parent / BUILD_STAMP
    flags = json.loads(stamp.read_text())["cmake_args"] if stamp.exists() else "unknown (no build stamp)"
    kernels = kernels_of(system_info)
    native = [k for k in kernels if any(k.startswith(bad) for bad in FORBIDDEN_KERNELS)]
    if native:
        raise RuntimeError(
            f"llama-cpp-python {llama_cpp.__version__} is a native build (kernels {', '.join(native)}): "
            "its greedy replies are this host's own; rebuild the portable build with `rm -f .venv/bin/.setup-done "
            "&& make setup`"
        )
    return {
        "version": llama_cpp.__version__,
        "cmake_args": flags,
        "system_info": system_info,
        "kernels": kernels,
        "identity": build_identity(llama_cpp.__version__, flags, kernels),
    }


if __name__ == "__main__":
    print(cmake_args())
