"""Running one Python module of a tree in its own process, for the benchmarks: wall time and peak memory."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path


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


def run_module(module: str, args: list[str], cwd: Path, log: Path, *, code: Path) -> Cost:
    """Run ``python -m MODULE ARGS`` in ``cwd`` with ``code`` first on PYTHONPATH (stdout and stderr to
    ``log``); its wall time and peak RSS (``wait4``). Exits with the log's tail when it fails."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(code), os.environ.get("PYTHONPATH", "")])}
    with log.open("w") as out:
        start = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-m", module, *args], cwd=cwd, env=env, stdout=out, stderr=out
        )
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
    code_ = os.waitstatus_to_exitcode(status)
    if code_ != 0:
        sys.exit(
            f"{module} {' '.join(args[:3])} failed ({code_}) in {cwd}; see {log}:\n{log.read_text()[-3000:]}"
        )
    return Cost(seconds, usage.ru_maxrss / 1024.0, log)
