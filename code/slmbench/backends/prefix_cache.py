"""Saved llama.cpp states of prompt prefixes, so a trial under clean KV need not evaluate what an earlier one did.

The prompt is always evaluated in blocks of ``PREFIX_BLOCK`` tokens at fixed positions (0, 64, 128, ...), whether
or not a block's state was restored: the arithmetic of every token is then the same with the cache on or off and
in any order of trials, so records are byte-identical (timings aside). A state is saved only at a block boundary
and keyed by the model file, the build identity, the context size and the exact tokens before the boundary; it is
never restored for another model, build or prompt. States live in memory and, when a folder is given, on disk, each
file with a header naming its key and the sha256 of its payload: a file that is corrupt, truncated or of another key
is removed and rebuilt, never trusted.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

PREFIX_BLOCK = 64
"""Tokens per evaluation block: llama.cpp's batch size for in-process models, and the grain of saved prefixes."""

MEMORY_BUDGET = 1 << 30
"""Bytes of states kept in memory (least recently used dropped first)."""
DISK_BUDGET = 4 << 30
"""Bytes of state files kept in a cache folder (oldest dropped first)."""


@dataclass(frozen=True)
class SavedState:
    """llama.cpp's state after the first ``n_tokens`` tokens of a prompt."""

    n_tokens: int
    tokens: tuple[int, ...]
    state: bytes


def block_floor(n: int) -> int:
    """The largest block boundary at or below ``n``."""
    return n - n % PREFIX_BLOCK


class PrefixCache:
    """States of prompt prefixes of one model file under one build and context size."""

    def __init__(self, identity: dict[str, object], folder: Path | None = None) -> None:
        self._identity = json.dumps(identity, sort_keys=True)
        self._memory: OrderedDict[str, SavedState] = OrderedDict()
        self._bytes = 0
        self._folder = folder
        self.restored = 0
        self.saved = 0

    def key(self, tokens: tuple[int, ...]) -> str:
        """The key of a prefix: the hash of the cache's identity and the prefix's tokens."""
        digest = hashlib.sha256(self._identity.encode())
        digest.update(json.dumps(tokens).encode())
        return digest.hexdigest()

    def longest(self, tokens: list[int], below: int) -> SavedState | None:
        """The saved state of the longest block-aligned prefix of ``tokens`` shorter than ``below`` tokens."""
        for end in range(block_floor(below - 1), 0, -PREFIX_BLOCK):
            found = self.get(tuple(tokens[:end]))
            if found is not None:
                return found
        return None

    def get(self, prefix: tuple[int, ...]) -> SavedState | None:
        """The state saved for exactly ``prefix``, from memory or disk (a bad file is removed)."""
        key = self.key(prefix)
        if key in self._memory:
            self._memory.move_to_end(key)
            return self._memory[key]
        if self._folder is None:
            return None
        found = self._read(key, prefix)
        if found is not None:
            self._remember(key, found)
        return found

    def put(self, saved: SavedState) -> None:
        """Keep ``saved`` in memory and, with a folder, on disk."""
        key = self.key(saved.tokens)
        if key in self._memory:
            return
        self._remember(key, saved)
        self.saved += 1
        if self._folder is not None:
            self._write(key, saved)

    def _remember(self, key: str, saved: SavedState) -> None:
        self._memory[key] = saved
        self._bytes += len(saved.state)
        while self._bytes > MEMORY_BUDGET and len(self._memory) > 1:
            _, old = self._memory.popitem(last=False)
            self._bytes -= len(old.state)

    def _path(self, key: str) -> Path:
        assert self._folder is not None
        return self._folder / f"{key}.state"

    def _read(self, key: str, prefix: tuple[int, ...]) -> SavedState | None:
        path = self._path(key)
        try:
            with path.open("rb") as handle:
                header = json.loads(handle.readline())
                payload = handle.read()
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            log.warning(
                "prefix cache: %s is unreadable (%s): removed, the prefix is evaluated again", path, exc
            )
            path.unlink(missing_ok=True)
            return None
        good = (
            isinstance(header, dict)
            and header.get("key") == key
            and header.get("identity") == self._identity
            and header.get("n_tokens") == len(prefix)
            and header.get("payload_sha256") == hashlib.sha256(payload).hexdigest()
        )
        if not good:
            log.warning(
                "prefix cache: %s is corrupt or of another key: removed, the prefix is evaluated again", path
            )
            path.unlink(missing_ok=True)
            return None
        os.utime(path)
        return SavedState(len(prefix), prefix, payload)

    def _write(self, key: str, saved: SavedState) -> None:
        assert self._folder is not None
        self._folder.mkdir(parents=True, exist_ok=True)
        header = {
            "key": key,
            "identity": self._identity,
            "n_tokens": saved.n_tokens,
            "payload_sha256": hashlib.sha256(saved.state).hexdigest(),
        }
        fd, tmp = tempfile.mkstemp(dir=self._folder, suffix=".partial")
        with os.fdopen(fd, "wb") as handle:
            handle.write(json.dumps(header).encode() + b"\n")
            handle.write(saved.state)
        os.replace(tmp, self._path(key))
        self._trim()

    def _trim(self) -> None:
        assert self._folder is not None
        files = sorted(self._folder.glob("*.state"), key=lambda p: p.stat().st_mtime)
        total = sum(p.stat().st_size for p in files)
        for path in files[:-1]:
            if total <= DISK_BUDGET:
                break
            total -= path.stat().st_size
            path.unlink(missing_ok=True)
