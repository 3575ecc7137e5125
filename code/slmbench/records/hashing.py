"""Hashes that name what a result was made from: a file's content, and the package's own source."""

from __future__ import annotations

import hashlib
from pathlib import Path

from slmbench.sources import PACKAGE, source_files


def sha256_file(path: Path) -> str:
    """Hex sha256 of a file, streamed."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def source_sha256() -> str:
    """Hash of the package's own source (``slmbench.sources.source_files``) by relative path.

    Unlike a commit id it can be recorded in committed outputs: a clean rebuild from the same source gives the
    same hash, so generated files reproduce byte for byte.
    """
    digest = hashlib.sha256()
    for path in source_files():
        digest.update(str(path.relative_to(PACKAGE)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()
