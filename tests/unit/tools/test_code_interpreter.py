"""Tests for the code_interpreter tool's normal behaviour (the attacks are in test_sandbox.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from slmbench.tools.base import ToolContext
from slmbench.tools.code_interpreter import CodeInterpreter
from slmbench.tools.sandbox import SandboxLimits

LIMITS = SandboxLimits(cpu_seconds=2, wall_seconds=4.0, output_chars=200)


@pytest.fixture
def interp(tmp_path: Path) -> CodeInterpreter:
    return CodeInterpreter(ToolContext(workdir=tmp_path), limits=LIMITS)


def test_runs_code_and_reports(interp: CodeInterpreter) -> None:
    result = interp.call(
        {"code": "import math, sys\nprint(math.factorial(5))\nprint('warn', file=sys.stderr)"}
    )
    assert result.ok
    content = result.content
    assert content["stdout"] == "120\n"
    assert content["stderr"] == "warn\n"
    assert content["exit_code"] == 0 and content["timed_out"] is False
    assert {"rlimits", "audit_hook", "clean_env", "process_group"} <= set(content["sandbox"])


def test_errors_show_the_users_traceback_only(interp: CodeInterpreter) -> None:
    content = interp.call({"code": "x = 1\ny = x / 0"}).content
    assert content["exit_code"] == 1
    assert 'File "<code>", line 2' in content["stderr"] and "ZeroDivisionError" in content["stderr"]
    assert "sandbox_child" not in content["stderr"] and "<string>" not in content["stderr"]
    syntax = interp.call({"code": "def f(:"}).content
    assert "SyntaxError" in syntax["stderr"] and syntax["exit_code"] == 1


def test_exit_code_and_stdin_closed(interp: CodeInterpreter) -> None:
    assert interp.call({"code": "raise SystemExit(3)"}).content["exit_code"] == 3
    assert "EOFError" in interp.call({"code": "input()"}).content["stderr"]


def test_each_run_is_fresh_and_files_inside_work_dir_work(interp: CodeInterpreter, tmp_path: Path) -> None:
    code = "import os\nprint(os.listdir('.'))\nopen('a.txt', 'w').write('x')\nprint(open('a.txt').read())"
    assert interp.call({"code": code}).content["stdout"] == "[]\nx\n"
    assert interp.call({"code": code}).content["stdout"] == "[]\nx\n"
    assert list((tmp_path / "code_runs").iterdir()) == []  # run directories are removed


def test_output_is_truncated(interp: CodeInterpreter) -> None:
    stdout = interp.call({"code": "print('y' * 1000)"}).content["stdout"]
    assert stdout.startswith("y" * 200) and "[output truncated: 1001 bytes in total]" in stdout
    assert len(stdout) < 260


def test_deterministic_including_set_order(tmp_path: Path) -> None:
    code = "print({'pear', 'fig', 'kiwi', 'plum', 'lime'}); print(hash('abc'))"
    outputs = [CodeInterpreter(ToolContext(workdir=tmp_path), limits=LIMITS).call({"code": code}).content
               for _ in range(2)]  # fmt: skip
    assert outputs[0] == outputs[1]


def test_snapshot_counts_runs_and_bad_arguments(interp: CodeInterpreter) -> None:
    assert interp.snapshot() == {"runs": 0}
    interp.call({"code": "pass"})
    assert not interp.call({"code": ""}).ok
    assert not interp.call({"code": 5}).ok
    assert interp.snapshot() == {"runs": 1}
