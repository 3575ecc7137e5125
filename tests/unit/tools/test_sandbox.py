"""Attacks on the code sandbox and file_operator: each must be contained, and the tool must keep working."""

from __future__ import annotations

import dataclasses
import os
import signal
import socket
import stat
import sys
import time
from pathlib import Path

import psutil
import pytest

from slmbench.tools import sandbox_user
from slmbench.tools.base import ToolContext
from slmbench.tools.code_interpreter import CodeInterpreter
from slmbench.tools.file_operator import FileOperator
from slmbench.tools.sandbox import SandboxLimits, default_python, run_python
from slmbench.tools.sandbox_user import NOBODY, reachable_by_others

LIMITS = SandboxLimits(cpu_seconds=1, wall_seconds=3.0, disk_bytes=24 * 1024 * 1024)
root_only = pytest.mark.skipif(os.geteuid() != 0, reason="the sandbox drops privileges only when run as root")
SECRET = "hunter2-not-for-children"


@pytest.fixture
def interp(tmp_path: Path) -> CodeInterpreter:
    return CodeInterpreter(ToolContext(workdir=tmp_path), limits=LIMITS)


def run(interp: CodeInterpreter, code: str) -> dict[str, object]:
    result = interp.call({"code": code})
    assert result.ok, result.error
    content = result.content
    assert isinstance(content, dict)
    return content


def assert_still_works(interp: CodeInterpreter) -> None:
    """The next ordinary call succeeds and nothing the attack started is left running."""
    content = run(interp, "print(6 * 7)")
    assert content["stdout"] == "42\n" and content["exit_code"] == 0
    assert psutil.Process().children(recursive=True) == []


def assert_refused(content: dict[str, object], needle: str = "not allowed") -> None:
    assert content["exit_code"] != 0
    assert needle in str(content["stderr"])


# --- code_interpreter -------------------------------------------------------------------------------------


def test_fork_bomb(interp: CodeInterpreter) -> None:
    assert_refused(run(interp, "import os\nwhile True:\n    os.fork()"))
    assert_still_works(interp)


def test_fork_through_multiprocessing(interp: CodeInterpreter) -> None:
    code = "import multiprocessing as m\np = m.Process(target=print)\np.start()\np.join()"
    assert_refused(run(interp, code))
    assert_still_works(interp)


def test_direct_fork_exec_bypass(interp: CodeInterpreter) -> None:
    content = run(
        interp, "import subprocess\nsubprocess._fork_exec = None\nimport _posixsubprocess as p\np.fork_exec()"
    )
    assert_refused(content)
    content = run(interp, "import sys\ndel sys.modules['_posixsubprocess']\nimport _posixsubprocess")
    assert_refused(content)
    assert_still_works(interp)


def test_memory_hog(interp: CodeInterpreter) -> None:
    content = run(interp, "block = bytearray(2 * 1024 ** 3)\nprint('allocated')")
    assert "MemoryError" in str(content["stderr"]) and "allocated" not in str(content["stdout"])
    assert_still_works(interp)


def test_cpu_spin(interp: CodeInterpreter) -> None:
    started = time.monotonic()
    content = run(interp, "while True:\n    pass")
    assert content["timed_out"] or content["exit_code"] in (-signal.SIGXCPU, -signal.SIGKILL)
    assert time.monotonic() - started < LIMITS.wall_seconds + 2
    assert_still_works(interp)


def test_wall_clock_timeout(tmp_path: Path) -> None:
    interp = CodeInterpreter(ToolContext(workdir=tmp_path), limits=SandboxLimits(wall_seconds=1.5))
    started = time.monotonic()
    content = run(interp, "import time\nprint('start')\ntime.sleep(60)")
    assert content["timed_out"] is True and content["stdout"] == "start\n"
    assert "wall-clock limit" in str(content["stderr"])
    assert time.monotonic() - started < 1.5 + 2
    assert_still_works(interp)


def test_disk_fill_one_file(interp: CodeInterpreter) -> None:
    content = run(interp, "with open('fill', 'wb') as f:\n    f.write(b'x' * 100 * 1024 * 1024)")
    assert content["exit_code"] != 0 and "File too large" in str(content["stderr"])
    assert_still_works(interp)


def test_disk_fill_many_files(interp: CodeInterpreter) -> None:
    code = "for i in range(100):\n    open(f'f{i}', 'wb').write(b'x' * 9 * 1024 * 1024)\nprint('filled')"
    content = run(interp, code)
    assert "disk quota exceeded" in str(content["stderr"]) and "filled" not in str(content["stdout"])
    assert_still_works(interp)


def test_tcp_connect_loopback_never_arrives(interp: CodeInterpreter) -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        code = f"import socket\ns = socket.create_connection(('127.0.0.1', {port}), timeout=1)\nprint('up')"
        content = run(interp, code)
        assert_refused(content)
        server.settimeout(0.2)
        with pytest.raises(TimeoutError):
            server.accept()
    assert_still_works(interp)


@pytest.mark.parametrize(
    "code",
    [
        "import socket\ns = socket.socket()\ns.settimeout(1)\ns.connect(('10.0.0.1', 80))\nprint('up')",
        "import socket\ns = socket.socket(type=socket.SOCK_DGRAM)\ns.sendto(b'x', ('10.0.0.1', 53))",
        "import socket\ns = socket.socket()\ns.bind(('0.0.0.0', 0))\ns.listen()\nprint('listening')",
        "import _socket\ns = _socket.socket()\nprint('made')",
        "import socket\nprint(socket.getaddrinfo('example.com', 80))",
    ],
    ids=["tcp-10.0.0.1", "udp-sendto", "bind-listen", "raw-_socket", "dns"],
)
def test_network(interp: CodeInterpreter, code: str) -> None:
    content = run(interp, code)
    assert_refused(content)
    assert content["stdout"] == ""
    assert_still_works(interp)


@pytest.mark.parametrize(
    "code",
    [
        "import os\nos.system('sh -c \"echo pwned\"')",
        "import subprocess\nprint(subprocess.run(['sh', '-c', 'echo pwned'], capture_output=True).stdout)",
        "import os\nos.execv('/bin/sh', ['sh', '-c', 'echo pwned'])",
        "import os\nos.posix_spawn('/bin/sh', ['sh', '-c', 'echo pwned'], {})",
        "import pty\npty.spawn(['sh', '-c', 'echo pwned'])",
    ],
    ids=["os.system", "subprocess.run", "execv", "posix_spawn", "pty.spawn"],
)
def test_shell(interp: CodeInterpreter, code: str) -> None:
    content = run(interp, code)
    assert_refused(content)
    assert "pwned" not in str(content["stdout"])
    assert_still_works(interp)


def test_kill_parent(interp: CodeInterpreter) -> None:
    assert_refused(run(interp, "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)"))
    assert_refused(run(interp, "import os, signal\nos.killpg(os.getpgid(os.getppid()), signal.SIGKILL)"))
    assert_still_works(interp)  # and this test process is evidently alive


@pytest.mark.parametrize(
    "path",
    [
        "/etc/passwd",
        "/etc/shadow",
        "/proc/self/environ",
        "/proc/{ppid}/environ",
        "/root/.bashrc",
        "{repo}/pyproject.toml",
    ],
)
def test_reading_sensitive_paths(interp: CodeInterpreter, path: str) -> None:
    target = path.format(ppid=os.getpid(), repo=Path(__file__).resolve().parents[3])
    content = run(interp, f"print(open({target!r}).read())")
    assert_refused(content)
    assert content["stdout"] == ""
    assert_still_works(interp)


def test_listing_and_symlink_tricks(interp: CodeInterpreter) -> None:
    assert_refused(run(interp, "import os\nprint(os.listdir('/home'))"))
    assert_refused(run(interp, "import os\nos.symlink('/etc/passwd', 'p')\nprint(open('p').read())"))
    assert_refused(run(interp, "import os\nos.link('/etc/passwd', 'h')\nprint(open('h').read())"))
    assert_still_works(interp)


def test_env_secrets_do_not_reach_the_child(interp: CodeInterpreter, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SLMBENCH_FAKE_SECRET", SECRET)
    content = run(
        interp, "import os\nprint(sorted(os.environ))\nprint(os.environ.get('SLMBENCH_FAKE_SECRET'))"
    )
    assert SECRET not in str(content["stdout"])
    assert content["stdout"] == "['HOME', 'LANG', 'PATH', 'PYTHONHASHSEED']\nNone\n"
    assert_refused(run(interp, f"print(open('/proc/{os.getpid()}/environ').read())"))
    assert_still_works(interp)


def test_huge_stdout_is_truncated(interp: CodeInterpreter) -> None:
    content = run(interp, "import sys\nsys.stdout.write('x' * 50_000_000)")
    stdout = str(content["stdout"])
    assert len(stdout) < LIMITS.output_chars + 100 and "[output truncated" in stdout
    assert_still_works(interp)


def test_writing_outside_the_work_dir(interp: CodeInterpreter, tmp_path: Path) -> None:
    escape = tmp_path / "escape.txt"
    for target in (str(escape), "../escape.txt", "/tmp/slmbench-escape.txt"):
        assert_refused(run(interp, f"open({target!r}, 'w').write('out')"))
    assert_refused(run(interp, f"import os\nos.rename('x', {str(escape)!r})"))
    assert not escape.exists() and not Path("/tmp/slmbench-escape.txt").exists()
    assert_still_works(interp)


@pytest.mark.parametrize(
    "code",
    [
        "import ctypes\nctypes.CDLL(None).system(b'echo pwned')",
        "import resource\nresource.setrlimit(resource.RLIMIT_CPU, (100, 100))",
        "import gc\nprint([o for o in gc.get_objects() if callable(o)])",
        "READ_ALLOWED = ('/',)\nREAD_DENIED = ()\nprint(open('/etc/passwd').read())",
    ],
    ids=["ctypes", "setrlimit", "gc-walk", "rebind-hook-globals"],
)
def test_tampering_with_the_sandbox(interp: CodeInterpreter, code: str) -> None:
    content = run(interp, code)
    assert_refused(content)
    assert "pwned" not in str(content["stdout"]) and "root:" not in str(content["stdout"])
    assert_still_works(interp)


# --- the kernel layers on their own (audit hook switched off) ----------------------------------------------


def _layers(parent: Path, limits: SandboxLimits) -> tuple[str, ...]:
    return run_python("pass", parent, limits).layers


def test_network_namespace_alone_blocks_network(tmp_path: Path) -> None:
    limits = SandboxLimits(cpu_seconds=1, wall_seconds=3.0, audit_hook=False)
    if "netns" not in _layers(tmp_path, limits):
        pytest.skip("network namespaces are not permitted here")
    code = "import socket\ns = socket.socket()\ns.settimeout(1)\ns.connect(('10.0.0.1', 80))"
    result = run_python(code, tmp_path, limits)
    assert result.exit_code == 1 and "Network is unreachable" in result.stderr


@root_only
def test_dropped_privileges_alone_contain_root_only_attacks(tmp_path: Path) -> None:
    limits = SandboxLimits(cpu_seconds=1, wall_seconds=3.0, audit_hook=False, max_processes=8)
    assert "setuid" in _layers(tmp_path, limits)
    shadow = run_python("print(open('/etc/shadow').read())", tmp_path, limits)
    assert "Permission denied" in shadow.stderr and shadow.stdout == ""
    kill = run_python("import os\nos.kill(os.getppid(), 9)", tmp_path, limits)
    assert "Operation not permitted" in kill.stderr
    bomb = run_python("import os, time\nfor _ in range(50):\n    os.fork()\ntime.sleep(30)", tmp_path, limits)
    assert "Resource temporarily unavailable" in bomb.stderr
    assert psutil.Process().children(recursive=True) == []


# --- who the code runs as ----------------------------------------------------------------------------------

ID_LIMITS = SandboxLimits(wall_seconds=30.0)
"""Generous: these tests are about who runs the code, not about its limits (a loaded machine starts it slowly)."""
IDS = "import os\nprint(os.getuid(), os.geteuid(), os.getgid(), os.getgroups(), os.getcwd())"


def _ids(stdout: object) -> tuple[list[str], Path]:
    *ids, cwd = str(stdout).split(" ", 4)
    return ids, Path(cwd.strip())


@root_only
def test_code_started_as_root_in_a_private_directory_runs_as_nobody(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """From inside a 0700 directory (a trial's temporary directory is one), the code still gets uid 65534."""
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    assert stat.S_IMODE(private.stat().st_mode) == 0o700 and not reachable_by_others(str(private / "trial"))
    monkeypatch.chdir(private)
    content = run(CodeInterpreter(ToolContext(workdir=private / "trial"), limits=ID_LIMITS), IDS)
    ids, cwd = _ids(content["stdout"])
    assert ids == [str(NOBODY), str(NOBODY), str(NOBODY), "[]"], content
    assert "setuid" in content["sandbox"] and "warning" not in content
    assert (
        cwd.parent.parent == sandbox_user.shared_tmp() and not cwd.parent.exists()
    )  # and removed afterwards


def _refuse_setuid(uid: int) -> None:
    raise PermissionError(1, "Operation not permitted")


@root_only
def test_a_failed_switch_in_the_child_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(os, "setuid", _refuse_setuid)  # the forked child inherits it
    content = run(CodeInterpreter(ToolContext(workdir=tmp_path), limits=ID_LIMITS), IDS)
    assert _ids(content["stdout"])[0][0] == "0" and "setuid" not in content["sandbox"]
    expected = "ran as root (switching to uid 65534 failed: [Errno 1] Operation not permitted)"
    assert expected in str(content["warning"])
    assert any(expected in r.getMessage() and r.levelname == "WARNING" for r in caplog.records)


@root_only
@pytest.mark.parametrize(
    ("patch", "reason"),
    [
        ({"runnable_by_others": lambda python: False}, "uid 65534 cannot run the interpreter"),
        ({"shared_tmp": lambda: None}, "no temporary folder uid 65534 can reach"),
        ({}, "drop_privileges is off"),
    ],
    ids=["interpreter-closed", "no-shared-folder", "drop-off"],
)
def test_a_run_that_cannot_drop_says_why(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    patch: dict[str, object],
    reason: str,
) -> None:
    for name, replacement in patch.items():
        monkeypatch.setattr(sandbox_user, name, replacement)
    limits = dataclasses.replace(ID_LIMITS, drop_privileges=bool(patch))
    content = run(CodeInterpreter(ToolContext(workdir=tmp_path), limits=limits), IDS)
    ids, cwd = _ids(content["stdout"])
    assert ids[0] == "0" and "setuid" not in content["sandbox"] and cwd.is_relative_to(tmp_path)
    assert reason in str(content["warning"]) and "ran as root" in str(content["warning"])
    assert any(reason in r.getMessage() and r.levelname == "WARNING" for r in caplog.records)


def test_code_started_unprivileged_keeps_its_uid_and_the_callers_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert sandbox_user.plan_user(tmp_path, sys.executable, True) == sandbox_user.UserPlan(tmp_path, None, "")


def test_interpreter_choice_is_recorded_and_stable() -> None:
    python = default_python(SandboxLimits())
    assert python == default_python(SandboxLimits()) and os.access(python, os.X_OK)
    assert default_python(SandboxLimits(drop_privileges=False)) == sys.executable


# --- file_operator ----------------------------------------------------------------------------------------


@pytest.fixture
def files(tmp_path: Path) -> FileOperator:
    return FileOperator(ToolContext(workdir=tmp_path, state={"files": {"ok.txt": "fine"}}))


def files_still_work(files: FileOperator) -> None:
    assert files.call({"action": "read", "path": "ok.txt"}).content == "fine"
    assert files.call({"action": "write", "path": "new.txt", "content": "n"}).ok


def assert_outside(result_error: str) -> None:
    assert result_error.startswith("path outside the sandbox"), result_error


@pytest.mark.parametrize("path", ["../x", "../../etc/passwd", "a/../../x", "/etc/passwd", "~/x", "/tmp"])
def test_file_paths_outside(files: FileOperator, path: str, tmp_path: Path) -> None:
    assert_outside(files.call({"action": "read", "path": path}).error)
    assert_outside(files.call({"action": "write", "path": path, "content": "x"}).error)
    assert not (tmp_path / "x").exists()
    files_still_work(files)


def test_symlink_to_etc_passwd(files: FileOperator, tmp_path: Path) -> None:
    (tmp_path / "files" / "pw").symlink_to("/etc/passwd")
    assert_outside(files.call({"action": "read", "path": "pw"}).error)
    assert_outside(files.call({"action": "write", "path": "pw", "content": "x"}).error)
    assert "pw" not in files.call({"action": "list"}).content and "pw" not in files.snapshot()["files"]
    files_still_work(files)


def test_symlinked_directory(files: FileOperator, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("s")
    (tmp_path / "files" / "link").symlink_to(outside, target_is_directory=True)
    assert_outside(files.call({"action": "read", "path": "link/secret.txt"}).error)
    assert_outside(files.call({"action": "write", "path": "link/new.txt", "content": "x"}).error)
    assert_outside(files.call({"action": "list", "path": "link"}).error)
    assert "link/secret.txt" not in files.call({"action": "list"}).content
    assert not (outside / "new.txt").exists()
    files_still_work(files)


def test_hard_link_to_outside_file(files: FileOperator, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("original")
    os.link(outside, tmp_path / "files" / "hl.txt")
    assert_outside(files.call({"action": "read", "path": "hl.txt"}).error)
    assert_outside(files.call({"action": "write", "path": "hl.txt", "content": "changed"}).error)
    assert outside.read_text() == "original"
    files_still_work(files)


def test_writing_through_a_symlink(files: FileOperator, tmp_path: Path) -> None:
    target = tmp_path / "target.txt"
    target.write_text("original")
    (tmp_path / "files" / "out.txt").symlink_to(target)
    assert_outside(files.call({"action": "write", "path": "out.txt", "content": "changed"}).error)
    assert target.read_text() == "original"
    files_still_work(files)


def test_nul_byte(files: FileOperator) -> None:
    for action in ("read", "write"):
        result = files.call({"action": action, "path": "ok.txt\x00../../etc/passwd", "content": "x"})
        assert not result.ok and "NUL" in result.error
    files_still_work(files)


def test_device_and_fifo_files(files: FileOperator, tmp_path: Path) -> None:
    (tmp_path / "files" / "zero").symlink_to("/dev/zero")
    assert_outside(files.call({"action": "read", "path": "zero"}).error)
    os.mkfifo(tmp_path / "files" / "pipe")
    assert "not a regular file" in files.call({"action": "read", "path": "pipe"}).error  # and did not block
    if os.geteuid() == 0:
        os.mknod(tmp_path / "files" / "null", stat.S_IFCHR | 0o600, os.makedev(1, 3))
        assert "not a regular file" in files.call({"action": "write", "path": "null", "content": "x"}).error
    files_still_work(files)
