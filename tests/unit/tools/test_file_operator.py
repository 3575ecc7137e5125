"""Tests for the file_operator tool (normal use; the attacks are in test_sandbox.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from slmbench.tools.base import ToolContext
from slmbench.tools.file_operator import MAX_BYTES, FileOperator

FILES = {"notes.txt": "buy milk\n", "docs/plan.md": "# Plan\n"}


@pytest.fixture
def files(tmp_path: Path) -> FileOperator:
    return FileOperator(ToolContext(workdir=tmp_path, state={"files": FILES}))


def test_initial_files_are_written_under_files_root(files: FileOperator, tmp_path: Path) -> None:
    assert (tmp_path / "files" / "docs" / "plan.md").read_text() == "# Plan\n"
    assert files.call({"action": "list"}).content == ["docs/plan.md", "notes.txt"]
    assert files.call({"action": "list", "path": "docs"}).content == ["docs/plan.md"]


def test_read_write_round_trip(files: FileOperator) -> None:
    assert files.call({"action": "read", "path": "notes.txt"}).content == "buy milk\n"
    result = files.call({"action": "write", "path": "out/summary.txt", "content": "done ✓"})
    assert result.ok and result.content == {
        "path": "out/summary.txt",
        "bytes_written": len("done ✓".encode()),
    }
    assert files.call({"action": "read", "path": "./out/../out/summary.txt"}).content == "done ✓"
    files.call({"action": "write", "path": "notes.txt", "content": ""})
    assert files.call({"action": "read", "path": "notes.txt"}).content == ""


def test_snapshot_has_every_file_and_summarises_binary(files: FileOperator, tmp_path: Path) -> None:
    (tmp_path / "files" / "blob.bin").write_bytes(b"\xff\xfe\x00\x01")
    files.call({"action": "write", "path": "a.txt", "content": "A"})
    assert files.snapshot() == {
        "files": {
            "a.txt": "A",
            "blob.bin": "<binary 4 bytes>",
            "docs/plan.md": "# Plan\n",
            "notes.txt": "buy milk\n",
        }
    }
    assert "binary" in files.call({"action": "read", "path": "blob.bin"}).error


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"action": "read", "path": "missing.txt"}, "no file"),
        ({"action": "read", "path": "docs"}, "is a folder"),
        ({"action": "read"}, "path"),
        ({"action": "write", "path": "x.txt"}, "content"),
        ({"action": "write", "path": "docs", "content": "x"}, "is a folder"),
        ({"action": "list", "path": "nowhere"}, "no folder"),
        ({"action": "delete", "path": "notes.txt"}, "must be one of"),
        ({"action": "read", "path": ""}, "must not be empty"),
    ],
)
def test_errors(files: FileOperator, arguments: dict[str, object], message: str) -> None:
    result = files.call(arguments)
    assert not result.ok
    assert message in result.error


def test_write_is_capped(files: FileOperator) -> None:
    result = files.call({"action": "write", "path": "big.txt", "content": "x" * (MAX_BYTES + 1)})
    assert not result.ok and "too large" in result.error
    assert files.call({"action": "write", "path": "ok.txt", "content": "x" * MAX_BYTES}).ok
    assert "big.txt" not in files.snapshot()["files"]


def test_fresh_state_and_determinism(tmp_path: Path) -> None:
    snaps = []
    for index in range(2):
        workdir = tmp_path / str(index)
        workdir.mkdir()
        tool = FileOperator(ToolContext(workdir=workdir, state={"files": FILES}))
        tool.call({"action": "write", "path": "n.txt", "content": "1"})
        snaps.append(tool.snapshot())
    assert snaps[0] == snaps[1]
