"""Running one Python module of a tree in its own process, for the benchmarks: wall time and peak memory."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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


def _tree_rss_mb(pid: int) -> float:
    """Resident memory of a process and all its descendants together (MB); 0 once it is gone."""
    try:
        root = psutil.Process(pid)
        procs = [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return 0.0
    total = 0
    for proc in procs:
        try:
            total += proc.memory_info().rss
        except psutil.NoSuchProcess:
            pass
    return total / 2**20


def _env(code: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(code), os.environ.get("PYTHONPATH", "")])}


def _failed(module: str, args: list[str], cwd: Path, log: Path, status: int) -> None:
    sys.exit(
        f"{module} {' '.join(args[:3])} failed ({status}) in {cwd}; see {log}:\n{log.read_text()[-3000:]}"
    )


def run_module(module: str, args: list[str], cwd: Path, log: Path, *, code: Path) -> Cost:
    """Run ``python -m MODULE ARGS`` in ``cwd`` with ``code`` first on PYTHONPATH (stdout and stderr to
    ``log``); its wall time and peak memory: the larger of the largest single process (``wait4``) and the
    resident memory of the process with its worker processes together, sampled every 50 ms. Exits with the
    log's tail when it fails."""
    with log.open("w") as out:
        start = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-m", module, *args], cwd=cwd, env=_env(code), stdout=out, stderr=out
        )
        tree_peak = [0.0]
        done = threading.Event()

        def sample() -> None:
            while not done.wait(0.05):
                tree_peak[0] = max(tree_peak[0], _tree_rss_mb(proc.pid))

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


def run_modules(
    module: str, jobs: list[tuple[list[str], Path]], cwd: Path, *, code: Path, workers: int
) -> Cost:
    """Run ``python -m MODULE ARGS`` for each (ARGS, log) of ``jobs``, up to ``workers`` at once, each next
    job started as soon as one ends (as ``snakemake --cores WORKERS`` runs independent one-core rules): the
    wall time of all of them and the peak of the resident memory of every running process together, sampled
    every 50 ms (the log named is the last job's). Exits with a failed job's log tail."""
    waiting = list(jobs)
    running: dict[int, tuple[subprocess.Popen[bytes], list[str], Path, Any]] = {}
    peak = 0.0
    start = time.perf_counter()
    while waiting or running:
        while waiting and len(running) < workers:
            args, log = waiting.pop(0)
            out = log.open("w")
            proc = subprocess.Popen(
                [sys.executable, "-m", module, *args], cwd=cwd, env=_env(code), stdout=out, stderr=out
            )
            running[proc.pid] = (proc, args, log, out)
        peak = max(peak, sum(_tree_rss_mb(pid) for pid in running))
        for pid, (proc, args, log, out) in list(running.items()):
            status = proc.poll()
            if status is None:
                continue
            out.close()
            del running[pid]
            if status != 0:
                for other, *_ in running.values():
                    other.kill()
                _failed(module, args, cwd, log, status)
        time.sleep(0.05)
    return Cost(time.perf_counter() - start, peak, jobs[-1][1] if jobs else Path())
