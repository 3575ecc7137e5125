"""Run untrusted Python in a separate, limited process: the engine behind ``code_interpreter``.

Layers, each recorded in the result when active:
``clean_env`` (only PATH, HOME, LANG and a fixed hash seed), ``rlimits`` (CPU, address space, processes,
file size, open files, no core dumps), ``process_group`` (own session; the whole group is killed at the end),
``wall_timeout``, ``disk_watch`` (the work directory is polled and the run killed past a quota),
``audit_hook`` (see ``sandbox_child``), ``netns`` (a fresh, empty network namespace, when permitted) and
``setuid`` (when run as root: the child becomes ``nobody``, which makes RLIMIT_NPROC and file permissions
bite; see ``sandbox_user``: a run that keeps root says so in ``SandboxResult.warning`` and the log).

The child runs ``python -u -B -s -S -P`` rather than ``-I``: ``-I`` would also ignore ``PYTHONHASHSEED``,
which keeps set and dict-of-str order, hence outputs, reproducible. The environment is built from scratch,
so nothing ``-E`` would guard against can reach the child.
"""

from __future__ import annotations

import ctypes
import dataclasses
import importlib.resources
import json
import logging
import os
import resource
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from slmbench.tools.sandbox_user import UserPlan, plan_user, python_for, root_warning

logger = logging.getLogger(__name__)

MIB = 1024 * 1024
CLONE_NEWNET = 0x40000000
POLL_SECONDS = 0.02
DISK_SCAN_SECONDS = 0.25


@dataclass(frozen=True)
class SandboxLimits:
    """Resource limits and layer switches of one sandboxed run (recorded by the harness)."""

    cpu_seconds: int = 5
    wall_seconds: float = 10.0
    memory_bytes: int = 512 * MIB
    max_processes: int = 32
    file_size_bytes: int = 10 * MIB
    open_files: int = 64
    disk_bytes: int = 64 * MIB
    disk_entries: int = 2000
    output_chars: int = 4000
    network_namespace: bool = True
    drop_privileges: bool = True
    audit_hook: bool = True

    def as_dict(self) -> dict[str, Any]:
        """The limits as a plain dict."""
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class SandboxResult:
    """What a run produced; ``exit_code`` is negative when a signal ended it."""

    stdout: str
    stderr: str
    exit_code: int
    timed_out: bool
    layers: tuple[str, ...]
    warning: str = ""
    """Why code the sandbox was started as root with ran as root (``sandbox_user.root_warning``), or empty."""


def _child_source() -> str:
    source = importlib.resources.files("slmbench.tools").joinpath("sandbox_child.py").read_text("utf-8")
    return source + "\nsandbox_main(__import__('sys').argv[1])\n"


def default_python(limits: SandboxLimits) -> str:
    """This interpreter, or (as root, so that ``setuid`` can work) a system one of the same version."""
    return python_for(limits.drop_privileges)


def _rlimits(limits: SandboxLimits) -> list[tuple[int, int, int]]:
    """(resource, soft, hard) triples, never above the current hard limits."""
    wanted = [
        (resource.RLIMIT_CPU, limits.cpu_seconds, limits.cpu_seconds + 1),  # SIGXCPU first, then SIGKILL
        (resource.RLIMIT_AS, limits.memory_bytes, limits.memory_bytes),
        (resource.RLIMIT_NPROC, limits.max_processes, limits.max_processes),
        (resource.RLIMIT_FSIZE, limits.file_size_bytes, limits.file_size_bytes),
        (resource.RLIMIT_NOFILE, limits.open_files, limits.open_files),
        (resource.RLIMIT_CORE, 0, 0),
    ]
    result = []
    for res, soft, hard in wanted:
        current = resource.getrlimit(res)[1]
        if current != resource.RLIM_INFINITY:
            soft, hard = min(soft, current), min(hard, current)
        result.append((res, soft, hard))
    return result


def _libc() -> Any:
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


_LIBC = _libc()


def _preexec(
    limits: SandboxLimits, rlimits: list[tuple[int, int, int]], uid: int | None, report_fd: int
) -> Callable[[], None]:
    """The function the forked child runs before ``exec``; it reports active layers on ``report_fd``."""

    def setup() -> None:
        layers = b""
        if limits.network_namespace and _LIBC is not None and _LIBC.unshare(CLONE_NEWNET) == 0:
            layers += b"n"
        for res, soft, hard in rlimits:
            resource.setrlimit(res, (soft, hard))
        if uid is not None:
            try:
                os.setgroups([])
                os.setgid(uid)
                os.setuid(uid)
                layers += b"u"
            except OSError as exc:  # reported, and the run goes ahead as root under the other layers
                layers += b"!" + f"switching to uid {uid} failed: {exc}".encode()
        os.write(report_fd, layers)

    return setup


def _disk_overrun(work: Path, limits: SandboxLimits) -> bool:
    """Whether ``work`` holds more than the disk quota (bytes allocated or entries)."""
    total, entries = 0, 0
    stack = [str(work)]
    while stack:
        try:
            scan = os.scandir(stack.pop())
        except OSError:
            continue
        with scan:
            for entry in scan:
                entries += 1
                if entries > limits.disk_entries:
                    return True
                try:
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                total += info.st_blocks * 512
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
    return total > limits.disk_bytes


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _read_output(path: Path, limit: int) -> str:
    size = path.stat().st_size
    with path.open("rb") as handle:
        text = handle.read(limit * 4).decode("utf-8", errors="replace")
    if len(text) > limit or size > limit * 4:
        return text[:limit] + f"\n[output truncated: {size} bytes in total]"
    return text


def _death_note(exit_code: int, timed_out: bool, over_quota: bool, limits: SandboxLimits) -> str:
    if timed_out:
        return f"[sandbox: killed after the {limits.wall_seconds:g} s wall-clock limit]"
    if over_quota:
        quota = f"{limits.disk_bytes} bytes, {limits.disk_entries} entries"
        return f"[sandbox: killed: disk quota exceeded ({quota})]"
    if exit_code == -signal.SIGXCPU or exit_code == -signal.SIGKILL:
        return f"[sandbox: killed: CPU time limit of {limits.cpu_seconds} s reached, or killed]"
    if exit_code == -signal.SIGXFSZ:
        return (
            f"[sandbox: killed: file size limit of {limits.file_size_bytes} bytes reached (output included)]"
        )
    if exit_code < 0:
        return f"[sandbox: killed by signal {signal.Signals(-exit_code).name}]"
    return ""


def run_python(
    code: str, parent: Path, limits: SandboxLimits | None = None, python: str | None = None
) -> SandboxResult:
    """Run ``code`` in a fresh temporary directory, removed afterwards: under ``parent``, or, when the code is
    handed to an unprivileged uid, under a shared temporary folder that uid can reach (``sandbox_user``)."""
    limits = limits or SandboxLimits()
    python = python or default_python(limits)
    plan = plan_user(parent, python, limits.drop_privileges)
    run_dir = Path(tempfile.mkdtemp(prefix="slmbench-code-", dir=plan.parent))
    try:
        return _run(code, run_dir, limits, python, plan)
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)


def _run(code: str, run_dir: Path, limits: SandboxLimits, python: str, plan: UserPlan) -> SandboxResult:
    work = run_dir / "work"
    work.mkdir()
    if plan.uid is not None:
        run_dir.chmod(0o711)  # made by mkdtemp (0700, root's): the uid may pass, not list
        os.chown(work, plan.uid, plan.uid)
    (run_dir / "code.py").write_text(code, encoding="utf-8")
    env = {"PATH": "/usr/bin:/bin", "HOME": str(work), "LANG": "C.UTF-8", "PYTHONHASHSEED": "0"}
    argv = [
        python,
        "-u",
        "-B",
        "-s",
        "-S",
        "-P",
        "-c",
        _child_source(),
        json.dumps({"audit_hook": limits.audit_hook}),
    ]
    report_read, report_write = os.pipe()
    started = time.monotonic()
    try:
        with (
            (run_dir / "code.py").open("rb") as stdin,
            (run_dir / "stdout").open("wb") as stdout,
            (run_dir / "stderr").open("wb") as stderr,
        ):
            proc = subprocess.Popen(
                argv, cwd=work, env=env, stdin=stdin, stdout=stdout, stderr=stderr, close_fds=True,
                start_new_session=True, preexec_fn=_preexec(limits, _rlimits(limits), plan.uid, report_write),
            )  # fmt: skip
    finally:
        os.close(report_write)
    with os.fdopen(report_read, "rb") as report:
        flags, _, failure = report.read().partition(b"!")
    timed_out, over_quota, next_scan = False, False, 0.0
    while os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None:
        elapsed = time.monotonic() - started
        if elapsed > limits.wall_seconds:
            timed_out = True
            break
        if elapsed >= next_scan:
            if _disk_overrun(work, limits):
                over_quota = True
                break
            next_scan = elapsed + DISK_SCAN_SECONDS
        time.sleep(POLL_SECONDS)
    _kill_group(proc.pid)  # the child is still unreaped here, so its pid (the group id) cannot be reused
    exit_code = proc.wait()
    layers = ["clean_env", "rlimits", "process_group", "wall_timeout", "disk_watch"]
    layers += ["audit_hook"] if limits.audit_hook else []
    layers += ["netns"] if b"n" in flags else []
    layers += ["setuid"] if b"u" in flags else []
    note = _death_note(exit_code, timed_out, over_quota, limits)
    stderr_text = _read_output(run_dir / "stderr", limits.output_chars)
    if note:
        stderr_text = f"{stderr_text}\n{note}" if stderr_text else note
    reason = plan.reason or failure.decode("utf-8", errors="replace")
    warning = root_warning(reason) if reason else ""
    if warning:
        logger.warning("%s", warning)
    logger.debug("sandbox run: exit %s, timed out %s, layers %s", exit_code, timed_out, layers)
    return SandboxResult(
        stdout=_read_output(run_dir / "stdout", limits.output_chars),
        stderr=stderr_text,
        exit_code=exit_code,
        timed_out=timed_out,
        layers=tuple(layers),
        warning=warning,
    )
