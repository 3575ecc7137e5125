"""What one trial shard asks a scheduler for (threads, memory, wall time), derived from its model.

The trial rules (``code/rules/trials.smk``) take their ``threads``, ``mem_mb`` and ``runtime`` from here, so a
SLURM job is sized by the model it loads and the trials it runs, not by one constant:

* **memory** (``mem_mb``): the GGUF file twice (the mapped file, and llama.cpp's repacked CPU copy of its
  quantised tensors: the committed records' peak RSS is about twice the file for the Q4_K models), plus the
  f16 KV cache for the shard's context window (layers, KV heads and head size read from the GGUF header), plus
  the logits buffer (vocabulary × 512-token batch × 4 bytes), plus ``BASE_MB`` for the interpreter and
  llama.cpp's compute buffers; at least ``RSS_HEADROOM`` × the largest peak RSS the model's committed records
  measured; rounded up to 256 MB. Without the file (not fetched yet) ``params_b`` GB stands in for its size
  and ``FALLBACK_KV_MB_PER_TOKEN`` / ``FALLBACK_LOGITS_MB`` for the header. A model of a backend that does not
  run it in this process (its ``in_process`` declaration: Ollama, an OpenAI-compatible server) holds its weights
  in the server: ``BASE_MB``.
* **wall time** (``runtime``, minutes): ``LOAD_S`` + ``SAFETY`` × trials in the shard × seconds per trial,
  at least ``MIN_RUNTIME_MIN``. Seconds per trial are measured: the mean ``wall_s`` of the model's slowest
  recorded shard under ``data/raw`` (a mean, not a median: one slow trial costs a shard its whole length).
  A model without records falls back to the study's ``trial_budget_s`` per trial (the per-trial time budget).
  Shards with more turns or tokens than the study's defaults scale by those ratios.
* **served load** (``served_<model>``): a model that a server runs takes at most its ``concurrency`` trials in
  flight, across shards too: each of its shards claims ``concurrency`` of a scheduler resource of its own
  (``served_resource``), whose limit is ``concurrency`` (``served_limits``; the workflow sets it unless
  ``--resources`` does), so two shards of one server never run at once beyond it.
* **threads**: llama.cpp decodes a model under 1B parameters no faster on more than 2 threads; larger ones
  get up to 4 (``2 × params_b``, rounded up). A served model needs 1. The backend uses the CPUs the
  job is given (``os.sched_getaffinity``), so the request and the use agree.
"""

from __future__ import annotations

import functools
import json
import math
import re
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from slmbench.backends import backend_facts
from slmbench.config import ModelSpec, StudyConfig

BASE_MB = 512
RSS_HEADROOM = 1.25
LOGITS_BATCH = 512
FALLBACK_KV_MB_PER_TOKEN = 0.125
FALLBACK_LOGITS_MB = 300.0
LOAD_S = 120.0
SAFETY = 2.0
MIN_RUNTIME_MIN = 10
MAX_THREADS = 4

# GGUF value types (https://github.com/ggml-org/ggml/blob/master/docs/gguf.md): struct format and size.
_SCALARS = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}
_STRING, _ARRAY = 8, 9


class GGUFHeaderError(ValueError):
    """The file is not a GGUF file this reader understands."""


def _read(handle: BinaryIO, fmt: str) -> Any:
    size = struct.calcsize("<" + fmt)
    data = handle.read(size)
    if len(data) != size:
        raise GGUFHeaderError("truncated GGUF header")
    return struct.unpack("<" + fmt, data)[0]


def _read_string(handle: BinaryIO) -> str:
    length = _read(handle, "Q")
    return handle.read(length).decode("utf-8", errors="replace")


def _skip_value(handle: BinaryIO, vtype: int) -> None:
    if vtype in _SCALARS:
        handle.seek(struct.calcsize("<" + _SCALARS[vtype]), 1)
    elif vtype == _STRING:
        handle.seek(_read(handle, "Q"), 1)
    elif vtype == _ARRAY:
        etype, count = _read(handle, "I"), _read(handle, "Q")
        if etype in _SCALARS:
            handle.seek(count * struct.calcsize("<" + _SCALARS[etype]), 1)
        else:
            for _ in range(count):
                _skip_value(handle, etype)
    else:
        raise GGUFHeaderError(f"unknown GGUF value type {vtype}")


def gguf_header(path: Path, wanted: set[str] | None = None) -> dict[str, Any]:
    """Scalar and string metadata of a GGUF file, read from its header without loading the tensors.

    Arrays are given as their length (``tokenizer.ggml.tokens`` → the vocabulary size). With ``wanted``, reading
    stops once every wanted key is seen (the tokenizer's arrays come after the architecture's keys).
    """
    out: dict[str, Any] = {}
    with path.open("rb") as handle:
        if handle.read(4) != b"GGUF":
            raise GGUFHeaderError(f"{path} is not a GGUF file")
        version = _read(handle, "I")
        if version < 2:
            raise GGUFHeaderError(f"{path}: GGUF version {version} is not supported")
        _read(handle, "Q")  # tensor count
        n_kv = _read(handle, "Q")
        for _ in range(n_kv):
            key = _read_string(handle)
            vtype = _read(handle, "I")
            if vtype in _SCALARS:
                out[key] = _read(handle, _SCALARS[vtype])
            elif vtype == _STRING:
                out[key] = _read_string(handle)
            elif vtype == _ARRAY:
                etype, count = _read(handle, "I"), _read(handle, "Q")
                out[key] = count
                if wanted is not None and wanted <= out.keys():
                    break
                if etype in _SCALARS:
                    handle.seek(count * struct.calcsize("<" + _SCALARS[etype]), 1)
                else:
                    for _ in range(count):
                        _skip_value(handle, etype)
            else:
                raise GGUFHeaderError(f"{path}: unknown GGUF value type {vtype} for {key}")
            if wanted is not None and wanted <= out.keys():
                break
    return out


@dataclass(frozen=True)
class ModelShape:
    """What the memory estimate needs from a GGUF file."""

    file_mb: float
    n_layer: int
    n_head_kv: int
    key_length: int
    value_length: int
    n_vocab: int

    def kv_cache_mb(self, n_ctx: int) -> float:
        """The f16 K and V caches of every layer for ``n_ctx`` tokens."""
        return self.n_layer * n_ctx * self.n_head_kv * (self.key_length + self.value_length) * 2 / 2**20

    @property
    def logits_mb(self) -> float:
        return self.n_vocab * LOGITS_BATCH * 4 / 2**20


@functools.cache
def model_shape(path: Path) -> ModelShape:
    """Layers, KV heads, head sizes and vocabulary of a GGUF file (header only), with its size."""
    arch = gguf_header(path, {"general.architecture"})["general.architecture"]
    keys = {
        f"{arch}.block_count",
        f"{arch}.attention.head_count",
        f"{arch}.embedding_length",
        "tokenizer.ggml.tokens",
    }
    meta = gguf_header(path, keys)
    missing = sorted(keys - meta.keys())
    if missing:
        raise GGUFHeaderError(f"{path}: no {', '.join(missing)} in the GGUF header")
    n_head = int(meta[f"{arch}.attention.head_count"])
    head = int(meta[f"{arch}.embedding_length"]) // n_head
    return ModelShape(
        file_mb=path.stat().st_size / 2**20,
        n_layer=int(meta[f"{arch}.block_count"]),
        n_head_kv=int(meta.get(f"{arch}.attention.head_count_kv", n_head)),
        key_length=int(meta.get(f"{arch}.attention.key_length", head)),
        value_length=int(meta.get(f"{arch}.attention.value_length", head)),
        n_vocab=int(meta["tokenizer.ggml.tokens"]),
    )


@dataclass(frozen=True)
class Measured:
    """What a model's committed records say about it."""

    seconds_per_trial: float  # mean wall_s of its slowest shard
    peak_rss_mb: float  # largest peak RSS of any trial (0 when not recorded)
    n_trials: int


@functools.cache
def measured(raw_dir: Path, model: str) -> Measured | None:
    """Speed and memory of ``model`` from the ``end`` events of its shards under ``raw_dir/<model>/``."""
    shard_means: list[float] = []
    peak = 0.0
    n = 0
    for shard in sorted((raw_dir / model).glob("*.jsonl")):
        walls = []
        for line in shard.read_text().splitlines():
            if not line.strip():
                continue
            end = next(
                (e for e in reversed(json.loads(line).get("events", [])) if e.get("type") == "end"), None
            )
            if end is None or end.get("wall_s") is None:
                continue
            walls.append(float(end["wall_s"]))
            peak = max(peak, float(end.get("peak_rss_mb") or 0.0))
        if walls:
            shard_means.append(sum(walls) / len(walls))
            n += len(walls)
    if not shard_means:
        return None
    return Measured(seconds_per_trial=max(shard_means), peak_rss_mb=peak, n_trials=n)


def _round_up(mb: float, step: int = 256) -> int:
    return int(math.ceil(mb / step) * step)


def model_mem_mb(
    spec: ModelSpec, n_ctx: int | None = None, gguf: Path | None = None, seen: Measured | None = None
) -> int:
    """Memory (MB) for one process that loads ``spec`` with an ``n_ctx`` window (module docstring)."""
    if not backend_facts(spec.backend).in_process:
        return _round_up(BASE_MB)
    n_ctx = n_ctx or spec.n_ctx
    if gguf is not None and gguf.exists():
        shape = model_shape(gguf)
        estimate = 2 * shape.file_mb + shape.kv_cache_mb(n_ctx) + shape.logits_mb + BASE_MB
    else:
        estimate = 2 * spec.params_b * 1024 + n_ctx * FALLBACK_KV_MB_PER_TOKEN + FALLBACK_LOGITS_MB + BASE_MB
    if seen is not None:
        estimate = max(estimate, RSS_HEADROOM * seen.peak_rss_mb)
    return _round_up(estimate)


def model_threads(spec: ModelSpec) -> int:
    """CPU threads for one shard of ``spec`` (module docstring)."""
    if not backend_facts(spec.backend).in_process:
        return 1
    return max(2, min(MAX_THREADS, math.ceil(2 * spec.params_b)))


def served_resource(model: str) -> str:
    """The scheduler resource that counts the trials in flight against served model ``model``:
    ``served_<model>``, every character that is not a letter, digit or ``_`` written as ``_``."""
    return "served_" + re.sub(r"\W", "_", model)


def served_limits(config: StudyConfig) -> dict[str, int]:
    """The limit of each served model's resource (``served_resource``): its ``concurrency``, for every model
    whose backend does not run it in this process."""
    return {
        served_resource(name): spec.concurrency
        for name, spec in config.models.items()
        if not backend_facts(spec.backend).in_process
    }


def shard_runtime_min(n_trials: int, seconds_per_trial: float, scale: float = 1.0) -> int:
    """Wall-time limit (minutes) of a shard of ``n_trials`` at ``seconds_per_trial`` (module docstring)."""
    seconds = LOAD_S + SAFETY * n_trials * seconds_per_trial * max(scale, 1.0)
    return max(MIN_RUNTIME_MIN, int(math.ceil(seconds / 60)))


@functools.cache
def count_trials(suite: str, tasks: tuple[str, ...] = (), repeats: int | None = None) -> int:
    """How many trials ``slmbench run`` plans for a shard (the suite's tasks, variants and repeats)."""
    from slmbench.tasks.loader import load_suite
    from slmbench.tasks.variants import trial_plan

    chosen = [t for t in load_suite(suite) if not tasks or t.id in tasks]
    return sum(len(trial_plan(task, repeats)) for task in chosen)


@dataclass(frozen=True)
class ShardResources:
    threads: int
    mem_mb: int
    runtime_min: int
    n_trials: int
    seconds_per_trial: float
    measured: bool  # seconds per trial from records (else the trial budget)


def shard_resources(
    model: str,
    spec: ModelSpec,
    *,
    suite: str,
    tasks: tuple[str, ...] = (),
    repeats: int | None = None,
    n_ctx: int | None = None,
    trial_budget_s: float,
    scale: float = 1.0,
    raw_dir: Path = Path("data/raw/slmbench"),
    gguf: Path | None = None,
) -> ShardResources:
    """Threads, memory and wall time of one trial shard of ``model`` (module docstring)."""
    seen = measured(raw_dir.resolve(), model)
    n = count_trials(suite, tuple(sorted(tasks)), repeats)
    per_trial = seen.seconds_per_trial if seen is not None else trial_budget_s
    return ShardResources(
        threads=model_threads(spec),
        mem_mb=model_mem_mb(spec, n_ctx, gguf, seen),
        runtime_min=shard_runtime_min(n, per_trial, scale),
        n_trials=n,
        seconds_per_trial=per_trial,
        measured=seen is not None,
    )
