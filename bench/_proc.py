"""Running one Python module of a tree in its own process, for the benchmarks: wall time and peak memory."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import psutil


@dataclass(frozen=True)
class Cost:
    """Wall seconds and peak resident memory (MB) of one process, with its log."""

    seconds: float
    peak_mb: float
    log: Path

    @property
    def text(self) -> str:
        """What the process wrote (stdout and stderr)."""
        return self.log.read_text()


def _tree_memory_mb(pid: int) -> float:
    """Memory of a process and all its descendants together (MB); 0 once it is gone. Each process counts its
    proportional set size where Linux reports it (``/proc/<pid>/smaps_rollup``, which the kernel sums cheaply):
    pages that forked workers share with their parent count once, where a sum of resident sizes would count
    them in every process. Elsewhere the resident size."""
    try:
        root = psutil.Process(pid)
        procs = [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return 0.0
    total = 0
    for proc in procs:
        try:
            total += _proportional_bytes(proc.pid) or proc.memory_info().rss
        except psutil.NoSuchProcess:
            pass
    return total / 2**20


def _proportional_bytes(pid: int) -> int | None:
    """The process's proportional set size in bytes, or None where the system does not report it."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as rollup:
            for line in rollup:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def _env(code: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(code), os.environ.get("PYTHONPATH", "")])}


def _failed(module: str, args: list[str], cwd: Path, log: Path, status: int) -> None:
    sys.exit(
        f"{module} {' '.join(args[:3])} failed ({status}) in {cwd}; see {log}:\n{log.read_text()[-3000:]}"
    )


def run_module(module: str, args: list[str], cwd: Path, log: Path, *, code: Path) -> Cost:
    """Run ``python -m MODULE ARGS`` in ``cwd`` with ``code`` first on PYTHONPATH (stdout and stderr to
    ``log``); its wall time and peak memory: the larger of the largest single process (``wait4``) and the
    memory of the process with its worker processes together (``_tree_memory_mb``), sampled every 0.5 s (reading a large process's proportional size costs CPU that the measured step would miss). Exits with the
    log's tail when it fails."""
    with log.open("w") as out:
        start = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-m", module, *args], cwd=cwd, env=_env(code), stdout=out, stderr=out
        )
        tree_peak = [0.0]
        done = threading.Event()

        def sample() -> None:
            while not done.wait(0.5):
                tree_peak[0] = max(tree_peak[0], _tree_memory_mb(proc.pid))

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        done.set()
        sampler.join()
    code_ = os.waitstatus_to_exitcode(status)
    if code_ != 0:
        _failed(module, args, cwd, log, code_)
    return Cost(seconds, max(usage.ru_maxrss / 1024.0, tree_peak[0]), log)
