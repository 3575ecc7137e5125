"""``file_operator``: read, write and list text files inside the trial's files root, and nowhere else."""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path
from typing import Any

from slmbench.tools.arguments import ArgumentError, get_choice, get_str, need_str
from slmbench.tools.base import ToolContext, ToolResult, register_tool
from slmbench.tools.files import files_root, read_regular, resolve, write_regular

logger = logging.getLogger(__name__)

ACTIONS = ("read", "write", "list")
MAX_BYTES = 1024 * 1024


def regular_files(root: Path) -> list[str]:
    """Sorted POSIX relative paths of the regular files under ``root`` (symlinks are not followed)."""
    found: list[str] = []
    for directory, _dirs, names in os.walk(root, followlinks=False):
        for name in names:
            path = os.path.join(directory, name)
            if stat.S_ISREG(os.lstat(path).st_mode):
                found.append(Path(os.path.relpath(path, root)).as_posix())
    return sorted(found)


@register_tool(name="file_operator", side_effects={"argument": "action", "actions": ("write",)})
class FileOperator:
    """Text files under ``ctx.workdir / "files"``, seeded from ``state["files"]``."""

    name = "file_operator"
    description = (
        "Work with files in the workspace. action 'list' lists files; 'read' returns the text of 'path'; "
        "'write' saves 'content' to 'path' (replacing it). Paths are relative, e.g. 'notes/todo.txt'."
    )
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": list(ACTIONS)},
            "path": {"type": "string", "description": "Relative file path (or a folder, for 'list')."},
            "content": {"type": "string", "description": "Text to write (action 'write')."},
        },
        "required": ["action"],
        "additionalProperties": False,
    }

    def __init__(self, ctx: ToolContext) -> None:
        self._root = files_root(ctx)

    def call(self, arguments: dict[str, Any]) -> ToolResult:
        """Run one action."""
        try:
            action = get_choice(arguments, "action", ACTIONS)
            if action == "list":
                return self._list(get_str(arguments, "path"))
            if action == "read":
                return self._read(need_str(arguments, "path"))
            return self._write(
                need_str(arguments, "path"), get_str(arguments, "content", required=True) or ""
            )
        except ArgumentError as exc:
            return ToolResult(ok=False, content=None, error=str(exc))

    def _list(self, rel: str | None) -> ToolResult:
        if rel is None or rel.strip() in ("", "."):
            return ToolResult(ok=True, content=regular_files(self._root))
        folder = resolve(self._root, rel)
        if not folder.is_dir():
            return ToolResult(ok=False, content=None, error=f"no folder {rel!r}")
        prefix = Path(os.path.relpath(folder, os.path.realpath(self._root)))
        return ToolResult(ok=True, content=[(prefix / name).as_posix() for name in regular_files(folder)])

    def _read(self, rel: str) -> ToolResult:
        path = resolve(self._root, rel)
        if not path.exists():
            return ToolResult(ok=False, content=None, error=f"no file {rel!r}")
        if path.is_dir():
            return ToolResult(ok=False, content=None, error=f"{rel!r} is a folder; use action 'list'")
        data = read_regular(path, MAX_BYTES + 1)
        try:
            text = data[:MAX_BYTES].decode("utf-8")
        except UnicodeDecodeError:
            return ToolResult(
                ok=False, content=None, error=f"{rel!r} is a binary file ({path.stat().st_size} bytes)"
            )
        if len(data) > MAX_BYTES:
            text += f"\n[truncated: file is larger than {MAX_BYTES} bytes]"
        return ToolResult(ok=True, content=text)

    def _write(self, rel: str, content: str) -> ToolResult:
        data = content.encode("utf-8")
        if len(data) > MAX_BYTES:
            return ToolResult(
                ok=False, content=None, error=f"content too large ({len(data)} bytes; limit {MAX_BYTES})"
            )
        path = resolve(self._root, rel, for_write=True)
        if path.is_dir():
            return ToolResult(ok=False, content=None, error=f"{rel!r} is a folder")
        path.parent.mkdir(parents=True, exist_ok=True)
        write_regular(path, data)
        return ToolResult(
            ok=True,
            content={
                "path": Path(os.path.relpath(path, os.path.realpath(self._root))).as_posix(),
                "bytes_written": len(data),
            },
        )

    def snapshot(self) -> dict[str, Any]:
        """``{"files": {relpath: text}}`` of every regular file under the root (binary files summarised)."""
        files: dict[str, str] = {}
        for rel in regular_files(self._root):
            data = (self._root / rel).read_bytes()
            try:
                files[rel] = data.decode("utf-8")
            except UnicodeDecodeError:
                files[rel] = f"<binary {len(data)} bytes>"
        return {"files": files}
