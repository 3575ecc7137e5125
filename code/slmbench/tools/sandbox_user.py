"""Who sandboxed code runs as: started as root, the sandbox hands the code to an unprivileged uid.

As ``nobody`` (uid 65534) file permissions and RLIMIT_NPROC bite. That needs an interpreter ``nobody`` can run
and a work directory it can reach, whatever the caller's directory (a trial's temporary directory is private,
0700): so the run's directory is made in a shared temporary folder every user can traverse, owned by root with
mode 0711, and only its ``work`` folder is handed to ``nobody``. When the drop is impossible the run goes ahead
as root under every other layer and says why (``UserPlan.reason``, then ``SandboxResult.warning``).
"""

from __future__ import annotations

import os
import stat
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

NOBODY = 65534
SHARED_TMP = ("/tmp", "/var/tmp", "/dev/shm")
"""Where a run's directory may live when the code is handed to ``nobody`` (after ``tempfile.gettempdir()``)."""


def reachable_by_others(path: str) -> bool:
    """Whether every folder above ``path`` is searchable by other users (and ``path`` itself exists)."""
    real = Path(os.path.realpath(path))
    try:
        return real.exists() and all(p.stat().st_mode & stat.S_IXOTH for p in real.parents)
    except OSError:
        return False


def runnable_by_others(python: str) -> bool:
    """Whether another user can run interpreter ``python`` and read its standard library."""
    real = os.path.realpath(python)
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    stdlib = Path(real).parent.parent / "lib" / version
    try:
        return (
            reachable_by_others(real)
            and bool(os.stat(real).st_mode & stat.S_IXOTH)
            and reachable_by_others(str(stdlib / "os.py"))
            and bool(stdlib.stat().st_mode & stat.S_IXOTH)
        )
    except OSError:
        return False


def python_for(drop_privileges: bool) -> str:
    """This interpreter, or (as root, so that the drop can work) a system one of the same version."""
    if drop_privileges and os.geteuid() == 0 and not runnable_by_others(sys.executable):
        version = f"python{sys.version_info.major}.{sys.version_info.minor}"
        for candidate in (f"/usr/bin/{version}", f"/usr/local/bin/{version}"):
            if os.path.exists(candidate) and runnable_by_others(candidate):
                return candidate
    return sys.executable


def shared_tmp() -> Path | None:
    """The first temporary folder other users can traverse but not tamper with (root's, or sticky), if any."""
    for candidate in (tempfile.gettempdir(), *SHARED_TMP):
        try:
            info = os.stat(candidate)
        except OSError:
            continue
        mode = info.st_mode
        guarded = (info.st_uid == 0 and not mode & stat.S_IWOTH) or bool(mode & stat.S_ISVTX)
        if stat.S_ISDIR(mode) and mode & stat.S_IXOTH and guarded and reachable_by_others(candidate):
            return Path(candidate)
    return None


@dataclass(frozen=True)
class UserPlan:
    """Where a run's directory is made and which uid its code gets."""

    parent: Path
    uid: int | None
    """The uid the child switches to; None: it keeps the caller's."""
    reason: str = ""
    """Why code started as root stays root (empty when it does not)."""


def plan_user(parent: Path, python: str, drop_privileges: bool) -> UserPlan:
    """The plan of one run whose directory would go under ``parent`` (the caller's choice, when no drop)."""
    if os.geteuid() != 0:
        return UserPlan(parent, None)
    if not drop_privileges:
        return UserPlan(parent, None, "drop_privileges is off")
    if not runnable_by_others(python):
        return UserPlan(parent, None, f"uid {NOBODY} cannot run the interpreter {python}")
    shared = shared_tmp()
    if shared is None:
        folders = ", ".join((tempfile.gettempdir(), *SHARED_TMP))
        return UserPlan(parent, None, f"no temporary folder uid {NOBODY} can reach ({folders})")
    return UserPlan(shared, NOBODY)


def root_warning(reason: str) -> str:
    """The warning a run that kept root carries (in its result and the log)."""
    return f"sandbox: the code ran as root ({reason}); the other layers applied"
