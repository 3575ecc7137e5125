"""llama.cpp's own ``llama-server`` on a GGUF file: the binary ``envs/build_llama_server.sh`` builds (``make
llama-server``), started on 127.0.0.1 and stopped by its PID; what the served tests and
``bench/served_throughput.py`` run the ``openai`` backend against.

The server applies the model's own chat template and tool-call parser (``--jinja``); each of its ``parallel``
slots has the context window ``n_ctx`` (the server is given ``n_ctx × parallel`` and splits it).
"""

from __future__ import annotations

import ctypes
import logging
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from types import TracebackType
from typing import IO, Any

import httpx

from slmbench.backends.llamacpp_build import build_identity, cmake_args, kernels_of
from slmbench.models.weights import cache_dir

log = logging.getLogger(__name__)
PR_SET_PDEATHSIG = 1
"""prctl(2): the signal a process gets when its parent dies."""
try:
    _LIBC: ctypes.CDLL | None = ctypes.CDLL(None)  # this process's C library (prctl on Linux)
except OSError:
    _LIBC = None


class LlamaServerError(RuntimeError):
    """The binary is missing, or the server did not come up."""


def llama_server_binary() -> Path:
    """The cached binary for the installed llama-cpp-python version (keyed by that version), built as the portable
    build (the CMake arguments beside it, ``llama-server.cmake-args``, are the portable build's).

    Raises:
        LlamaServerError: the binary is missing, or was built with other CMake arguments.
    """
    version = metadata.version("llama_cpp_python")
    binary = cache_dir() / "llama-server" / version / "llama-server"
    if not binary.is_file():
        raise LlamaServerError(f"{binary} is missing: run `make llama-server` (builds it once, minutes)")
    stamp = binary.with_name("llama-server.cmake-args")
    if not stamp.is_file() or stamp.read_text() != cmake_args():
        raise LlamaServerError(f"{binary} is not the portable build: run `make llama-server` (rebuilds it)")
    return binary


def server_build(log_text: str) -> dict[str, Any]:
    """The build of the running server, as the in-process backend records its own (``backend.build``): version,
    CMake arguments, the kernels its startup log names (``system_info``) and the build identity, so that served and
    in-process trials of one build pair as one build."""
    version = metadata.version("llama_cpp_python")
    info = next((line for line in log_text.splitlines() if "system_info" in line), "")
    kernels = kernels_of(info)
    return {
        "version": version,
        "cmake_args": cmake_args(),
        "system_info": info.strip(),
        "kernels": kernels,
        "identity": build_identity(version, cmake_args(), kernels),
    }


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listened on a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _end_with_parent() -> None:
    """In the server's process before it runs (Linux): SIGTERM when the process that started it dies, so a killed
    runner leaves no server behind (elsewhere: nothing)."""
    prctl = getattr(_LIBC, "prctl", None)
    if prctl is not None:
        prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


@dataclass
class LlamaServer:
    """One ``llama-server`` process serving ``model`` under the name ``alias``; use as a context manager."""

    model: Path
    alias: str
    parallel: int = 1
    n_ctx: int = 4096
    threads: int = 2
    log_path: Path | None = None
    port: int = 0
    pid: int | None = None
    _process: subprocess.Popen[bytes] | None = field(default=None, repr=False)
    _log: IO[bytes] | None = field(default=None, repr=False)

    @property
    def base_url(self) -> str:
        """The OpenAI-compatible base URL (what ``base_url:`` in config.yaml names)."""
        return f"http://127.0.0.1:{self.port}/v1"

    def command(self) -> list[str]:
        """The server's command line."""
        return [
            str(llama_server_binary()),
            *("-m", str(self.model), "--alias", self.alias, "--host", "127.0.0.1", "--port", str(self.port)),
            *("--jinja", "-c", str(self.n_ctx * self.parallel), "--parallel", str(self.parallel)),
            *("--no-kv-unified", "-t", str(self.threads), "--no-webui", "--offline"),
        ]

    def start(self, timeout_s: float = 180.0) -> LlamaServer:
        """Start the server and wait until ``/health`` answers 200 (the model is loaded); a server that does not
        come up, or a wait cut short (Ctrl-C), is stopped before the error propagates."""
        self.port = self.port or free_port()
        self._log = self.log_path.open("wb") if self.log_path else None
        output = self._log or subprocess.DEVNULL
        self._process = subprocess.Popen(
            self.command(), stdout=output, stderr=subprocess.STDOUT, preexec_fn=_end_with_parent
        )
        self.pid = self._process.pid
        try:
            self._wait_until_healthy(self._process, timeout_s)
        except BaseException:
            self.stop()
            raise
        log.info("llama-server pid %d serving %s at %s", self.pid, self.alias, self.base_url)
        return self

    def _wait_until_healthy(self, process: subprocess.Popen[bytes], timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise LlamaServerError(f"llama-server exited with {process.returncode}: {self._tail()}")
            try:
                if httpx.get(self.base_url.removesuffix("/v1") + "/health", timeout=2.0).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.25)
        raise LlamaServerError(
            f"llama-server did not answer /health within {timeout_s:.0f} s: {self._tail()}"
        )

    def _tail(self) -> str:
        if self.log_path is None or not self.log_path.exists():
            return "(no log)"
        return " | ".join(self.log_path.read_text(errors="replace").splitlines()[-5:])

    def stop(self) -> None:
        """End the process this object started (by its PID): SIGTERM, then SIGKILL after 15 s."""
        if self._process is not None and self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait(timeout=15)
        if self._log is not None:
            self._log.close()
            self._log = None

    def __enter__(self) -> LlamaServer:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
