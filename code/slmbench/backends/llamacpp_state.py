"""What the in-process backend reads from and writes to llama.cpp's context beside generation: saved states of
prompt prefixes (``slmbench.backends.prefix_cache``) and the log-probability of each sampled token."""

from __future__ import annotations

import ctypes
import math
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from slmbench.backends.base import BackendError
from slmbench.backends.prefix_cache import PrefixCache, SavedState, block_floor


def common_prefix(a: list[int], b: list[int]) -> int:
    """How many leading tokens ``a`` and ``b`` share."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


class StateKeeper:
    """Restores and saves the prefix states of one loaded model (``llama_cpp.Llama``) through a ``PrefixCache``."""

    def __init__(self, llm: Any, cache: PrefixCache) -> None:
        self._llm = llm
        self.cache = cache

    def prepare(self, tokens: list[int], save_points: list[int]) -> int:
        """Before a request on an empty KV cache: restore the longest saved block-aligned prefix of ``tokens``,
        then evaluate block by block up to each save point and save its state. Returns the tokens restored.

        Nothing happens when the KV cache holds tokens (a later turn of a trial reuses its own history).
        """
        llm = self._llm
        if llm.n_tokens != 0:
            return 0
        restored = 0
        found = self.cache.longest(tokens, below=len(tokens))
        if found is not None:
            self._load(found)
            restored = found.n_tokens
            self.cache.restored += 1
        for point in sorted({block_floor(p) for p in save_points}):
            if point <= llm.n_tokens or point >= len(tokens):
                continue
            llm.eval(tokens[llm.n_tokens : point])
            self.cache.put(SavedState(point, tuple(tokens[:point]), self._dump()))
        return restored

    def _dump(self) -> bytes:
        ctx = self._llm._ctx.ctx
        import llama_cpp

        size = llama_cpp.llama_state_get_size(ctx)
        buffer = (ctypes.c_uint8 * size)()
        written = llama_cpp.llama_state_get_data(ctx, buffer, size)
        return ctypes.string_at(buffer, written)

    def _load(self, saved: SavedState) -> None:
        import llama_cpp

        llm = self._llm
        buffer = (ctypes.c_uint8 * len(saved.state)).from_buffer_copy(saved.state)
        if llama_cpp.llama_state_set_data(llm._ctx.ctx, buffer, len(saved.state)) != len(saved.state):
            raise BackendError("llama.cpp refused a saved prefix state")
        llm.input_ids[: saved.n_tokens] = saved.tokens
        llm.n_tokens = saved.n_tokens
        llm._requires_eval = True


@contextmanager
def sampled_logprobs(llm: Any) -> Iterator[list[float]]:
    """While open, each token ``llm`` samples appends its natural-log probability under the model's logits
    (before temperature and other samplers: the model's own confidence) to the yielded list."""
    import llama_cpp

    found: list[float] = []
    shadowed = vars(llm).get("sample")  # a sampler set on the instance (teacher forcing) stays after
    original = llm.sample
    n_vocab = llm.n_vocab()

    def sample(*args: Any, idx: int | None = None, **kwargs: Any) -> int:
        token = int(original(*args, idx=idx, **kwargs))
        ridx = idx - llm.n_tokens if idx is not None else -1
        pointer = llama_cpp.llama_get_logits_ith(llm._ctx.ctx, ridx)
        logits = np.ctypeslib.as_array(pointer, shape=(n_vocab,)).astype(np.float64)
        top = float(logits.max())
        found.append(float(logits[token]) - top - math.log(float(np.exp(logits - top).sum())))
        return token

    llm.sample = sample
    try:
        yield found
    finally:
        if shadowed is None:
            del llm.sample
        else:
            llm.sample = shadowed
