"""The first code the sandbox's child interpreter runs: it installs an audit hook, then runs the user's code.

``slmbench.tools.sandbox`` passes this file's source to ``python -c`` together with a JSON config in
``argv[1]`` and the user's code on stdin; slmbench never calls it in its own process. Only the standard
library is used. The hook is one layer among several (namespaces and resource limits are the kernel's);
it refuses process creation, sockets, signals to other processes, native code loading, writes outside the
work directory and reads outside an allow-list (the work directory, the standard library, ``/usr``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

BLOCKED_EVENTS = frozenset(
    {
        "os.fork", "os.forkpty", "os.exec", "os.posix_spawn", "os.spawn", "os.system", "os.startfile",
        "subprocess.Popen", "pty.spawn", "os.kill", "os.killpg", "signal.pthread_kill",
        "socket.__new__", "socket.connect", "socket.bind", "socket.sendto", "socket.sendmsg",
        "socket.getaddrinfo", "socket.gethostbyname", "socket.gethostbyaddr", "socket.sethostname",
        "ctypes.dlopen", "ctypes.dlsym", "ctypes.cdata", "resource.setrlimit", "resource.prlimit",
        "gc.get_objects", "gc.get_referrers", "gc.get_referents", "sys._current_frames",
        "cpython.PyInterpreterState_New", "syslog.openlog", "syslog.syslog",
    }
)  # fmt: skip
BLOCKED_MODULES = frozenset(
    {"ctypes", "_ctypes", "_posixsubprocess", "_xxsubinterpreters", "_testcapi", "_testinternalcapi"}
)
WRITE_EVENTS = {  # event -> indexes of the path arguments it writes
    "os.remove": (0,), "os.rmdir": (0,), "os.mkdir": (0,), "os.chmod": (0,), "os.chown": (0,),
    "os.truncate": (0,), "os.utime": (0,), "os.rename": (0, 1), "os.link": (0, 1), "os.symlink": (1,),
    "os.mkfifo": (0,), "os.mknod": (0,), "os.setxattr": (0,), "os.removexattr": (0,), "os.chflags": (0,),
}  # fmt: skip
READ_EVENTS = {"os.listdir": 0, "os.scandir": 0, "os.listxattr": 0, "os.getxattr": 0}
READ_ALLOWED = ("/usr", "/dev/null", "/dev/zero", "/dev/urandom", "/etc/localtime", "/etc/mime.types")
READ_DENIED = (
    "/proc",
    "/sys",
    "/etc/shadow",
    "/etc/gshadow",
    "/etc/passwd",
    "/etc/sudoers",
    "/root",
    "/home",
)


def make_hook(work: str, trusted: tuple[str, ...]) -> Callable[[str, tuple[Any, ...]], None]:
    """The audit hook: ``work`` is writable; ``trusted`` (work, stdlib) and ``READ_ALLOWED`` are readable."""
    import os

    realpath, fsdecode = os.path.realpath, os.fsdecode
    # Bound here, not looked up as globals: the user's code runs in (and may rebind) this module's namespace.
    blocked_events, blocked_modules, write_events, read_events = (
        BLOCKED_EVENTS,
        BLOCKED_MODULES,
        WRITE_EVENTS,
        READ_EVENTS,
    )
    read_allowed, read_denied = READ_ALLOWED, READ_DENIED
    write_flags = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC

    def within(path: str, roots: tuple[str, ...]) -> bool:
        return any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)

    def resolved(path: Any) -> str | None:
        if path is None:
            path = "."
        return None if isinstance(path, int) else realpath(fsdecode(path))

    def check_write(path: Any) -> None:
        real = resolved(path)
        if real is not None and not within(real, (work,)):
            raise PermissionError(f"sandbox: writing {real} is not allowed (only inside the work directory)")

    def check_read(path: Any) -> None:
        real = resolved(path)
        if real is None or within(real, trusted):
            return
        if within(real, read_denied) or not within(real, read_allowed):
            raise PermissionError(f"sandbox: reading {real} is not allowed")

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if event in blocked_events:
            raise PermissionError(f"sandbox: {event} is not allowed")
        if event == "import" and str(args[0]).split(".")[0] in blocked_modules:
            raise PermissionError(f"sandbox: importing {args[0]} is not allowed")
        if event == "open":
            path, mode, flags = args
            writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
                isinstance(flags, int) and flags & write_flags
            )
            check_write(path) if writing else check_read(path)
        elif event in write_events:
            for index in write_events[event]:
                check_write(args[index])
        elif event in read_events:
            check_read(args[read_events[event]])

    return hook


def sandbox_main(config_json: str) -> None:
    """Read the user's code from stdin, arm the hook, run the code as ``__main__``."""
    import _posixsubprocess  # imported now so that the hook can refuse any later import of it
    import json
    import linecache
    import os
    import sys
    import traceback

    config = json.loads(config_json)
    source = sys.stdin.read()
    sys.stdin = open(os.devnull, encoding="utf-8")  # kept open for the life of the process

    def refuse(*_args: Any, **_kwargs: Any) -> None:
        raise PermissionError("sandbox: starting processes is not allowed")

    _posixsubprocess.fork_exec = refuse  # type: ignore[attr-defined,assignment]
    work = os.path.realpath(os.getcwd())
    hook = make_hook(work, (work, os.path.realpath(os.path.dirname(os.__file__))))
    if config.get("audit_hook", True):
        sys.addaudithook(hook)
    linecache.cache["<code>"] = (len(source), None, source.splitlines(True), "<code>")
    namespace = sys.modules["__main__"].__dict__
    for name in [key for key in namespace if key not in ("__name__", "__builtins__")]:
        del namespace[name]
    try:
        exec(compile(source, "<code>", "exec"), namespace)
    except SystemExit:
        raise
    except BaseException as exc:  # show the user's traceback only, as a plain script would
        report = traceback.TracebackException.from_exception(exc)
        frames = [frame for frame in report.stack if frame.filename != "<string>"]  # drop this file's frames
        report.stack = traceback.StackSummary.from_list(frames)
        sys.stderr.write("".join(report.format()))
        raise SystemExit(1) from None
