"""The shared files root of the file-based tools, and containment checks for paths inside it."""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

from slmbench.tools.arguments import ArgumentError
from slmbench.tools.base import ToolContext

logger = logging.getLogger(__name__)

FILES_DIR = "files"
OUTSIDE = "path outside the sandbox"


class PathError(ArgumentError):
    """A path the tools refuse to touch."""


def files_root(ctx: ToolContext) -> Path:
    """``ctx.workdir / "files"``, created and filled from ``ctx.state["files"]`` on first use."""
    root = ctx.workdir / FILES_DIR
    if root.is_dir():
        return root
    root.mkdir(parents=True)
    for rel, content in sorted((ctx.state.get("files") or {}).items()):
        target = resolve(root, str(rel), for_write=True)
        target.parent.mkdir(parents=True, exist_ok=True)
        data = content.encode("utf-8") if isinstance(content, str) else bytes(content)
        target.write_bytes(data)
    logger.debug("files root %s holds %d initial files", root, len(ctx.state.get("files") or {}))
    return root


def _contained(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def resolve(root: Path, rel: str, *, for_write: bool = False) -> Path:
    """The real path of ``rel`` under ``root``, refusing anything that could reach outside it.

    Refused: empty paths, NUL bytes, absolute paths, paths (after resolving ``..`` and symlinks) outside
    ``root``, existing files that are not regular files, and existing files with more than one hard link.
    For writes, the parent directory is checked the same way.
    """
    if "\x00" in rel:
        raise PathError("invalid path: contains a NUL byte")
    if not rel.strip():
        raise PathError("invalid path: empty")
    if os.path.isabs(rel) or rel.startswith("~"):
        raise PathError(f"{OUTSIDE}: absolute paths are not allowed ({rel!r})")
    real_root = os.path.realpath(root)
    real = os.path.realpath(os.path.join(real_root, rel))
    if not _contained(real, real_root):
        raise PathError(f"{OUTSIDE}: {rel!r}")
    if for_write and not _contained(os.path.realpath(os.path.dirname(real)), real_root):
        raise PathError(f"{OUTSIDE}: {rel!r}")
    try:
        info = os.lstat(real)
    except FileNotFoundError:
        return Path(real)
    if stat.S_ISDIR(info.st_mode):
        return Path(real)
    if not stat.S_ISREG(info.st_mode):
        raise PathError(f"{OUTSIDE}: {rel!r} is not a regular file")
    if info.st_nlink > 1:
        raise PathError(f"{OUTSIDE}: {rel!r} is a hard link")
    return Path(real)


def read_regular(path: Path, limit: int = -1) -> bytes:
    """Read (up to ``limit`` bytes of) a regular file without following a symlink at its last component."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    with os.fdopen(fd, "rb") as handle:
        return handle.read(limit)


def write_regular(path: Path, data: bytes) -> None:
    """Create or replace a regular file without following a symlink at its last component."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
