"""Data as the site's pages read it: JSON safe inside ``<script>`` and ``.js`` files, file-safe shard ids.

The site opens from disk (``file://``), where a page cannot ``fetch()`` a local JSON file but can load a
``<script src>``. Every data file is therefore a ``.js`` file holding one call, ``SLM.chunk("id", {...})``,
whose argument is JSON with ``<``, ``>``, ``&`` and the two JavaScript line separators escaped, so no model
text can close a script element or start markup.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from typing import Any

_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
_ESCAPE_RE = re.compile("[<>&\u2028\u2029]")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
KEY_RE = re.compile(r"^[A-Za-z0-9._-]+$")
"""What a number's key may hold: it names a file (``numbers/<key>.html``) and a PDF link."""


def plain(value: Any) -> Any:
    """``value`` as plain JSON types: numpy scalars to Python, NaN, infinities and pandas NA to ``None``."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if value is None or isinstance(value, str | bool | int):
        return value
    if hasattr(value, "item"):  # numpy scalar
        return plain(value.item())
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    try:
        if value != value:  # pandas NA and NaT compare unequal to themselves (or raise)
            return None
    except TypeError:
        return None
    return str(value)


def script_json(obj: Any) -> str:
    """Compact JSON of ``obj`` that is safe to embed in an HTML ``<script>`` element or a ``.js`` file."""
    try:  # plain JSON already (records dumped in JSON mode): no walk through every value
        text = json.dumps(obj, separators=(",", ":"), ensure_ascii=False, allow_nan=False, sort_keys=True)
    except (TypeError, ValueError):
        text = json.dumps(
            plain(obj), separators=(",", ":"), ensure_ascii=False, allow_nan=False, sort_keys=True
        )
    return _ESCAPE_RE.sub(lambda m: _ESCAPES[m.group(0)], text)


def js_call(function: str, *args: Any) -> str:
    """One line of JavaScript: ``function(arg, ...);`` with each argument as :func:`script_json`."""
    return f"{function}({','.join(script_json(a) for a in args)});\n"


def shard_ids(paths: Iterable[str]) -> dict[str, str]:
    """A distinct file-safe id for each shard path (``model/name.jsonl`` -> ``model__name``)."""
    out: dict[str, str] = {}
    used: set[str] = set()
    for path in paths:
        parts = path.removesuffix(".jsonl").split("/")
        base = _UNSAFE.sub("_", "__".join(parts[-2:])).strip("._") or "shard"
        candidate, n = base, 1
        while candidate in used:
            n += 1
            candidate = f"{base}-{n}"
        used.add(candidate)
        out[path] = candidate
    return out


def ranges(positions: Iterable[int]) -> list[list[int]]:
    """Sorted row positions as half-open runs ``[[start, stop], ...]`` (a number's trials, compactly)."""
    out: list[list[int]] = []
    for p in sorted(set(positions)):
        if out and out[-1][1] == p:
            out[-1][1] = p + 1
        else:
            out.append([p, p + 1])
    return out
