"""The prefix cache: records byte-identical with it on and off and in any order of trials; a corrupt or foreign
state file is rebuilt, never trusted; log-probabilities of the sampled tokens are kept (real SmolLM2-135M)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from slmbench.backends.prefix_cache import PREFIX_BLOCK, PrefixCache, SavedState, block_floor
from slmbench.config import load_config
from slmbench.harness.loop import LoopSettings, run_trial
from slmbench.models.weights import weights_path
from slmbench.records.schema import ModelResponse
from slmbench.tasks.loader import task_index
from slmbench.tasks.variants import FAULT_KINDS, trial_plan

CONFIG = load_config("config.yaml")
SMOLLM = CONFIG.models["smollm2-135m"]
needs_model = pytest.mark.skipif(
    not weights_path(SMOLLM).exists(), reason="run `slmbench models fetch smollm2-135m` (make test does)"
)
TIMINGS = {"t", "latency_s", "wall_s", "restored_tokens"}
"""What may differ between a run with the cache and one without: when things happened and what was restored."""


def test_block_floor_rounds_down_to_a_block() -> None:
    assert [block_floor(n) for n in (0, PREFIX_BLOCK - 1, PREFIX_BLOCK, 3 * PREFIX_BLOCK + 5)] == [
        0,
        0,
        PREFIX_BLOCK,
        3 * PREFIX_BLOCK,
    ]


def test_a_corrupt_or_foreign_state_file_is_removed_and_never_trusted(tmp_path: Path) -> None:
    tokens = tuple(range(PREFIX_BLOCK))
    cache = PrefixCache({"model": "a"}, tmp_path)
    cache.put(SavedState(PREFIX_BLOCK, tokens, b"state bytes"))
    (path,) = tmp_path.glob("*.state")
    assert PrefixCache({"model": "a"}, tmp_path).get(tokens) == SavedState(
        PREFIX_BLOCK, tokens, b"state bytes"
    )
    assert PrefixCache({"model": "b"}, tmp_path).get(tokens) is None  # another model: another key, no file
    path.write_bytes(path.read_bytes()[:-3] + b"XYZ")  # the payload no longer matches its hash
    assert PrefixCache({"model": "a"}, tmp_path).get(tokens) is None
    assert not path.exists()
    cache = PrefixCache({"model": "a"}, tmp_path)
    cache.put(SavedState(PREFIX_BLOCK, tokens, b"state bytes"))
    header, _, payload = path.read_bytes().partition(b"\n")
    foreign = json.loads(header) | {"identity": json.dumps({"model": "c"})}
    path.write_bytes(
        json.dumps(foreign).encode() + b"\n" + payload
    )  # a file of another model under this name
    assert PrefixCache({"model": "a"}, tmp_path).get(tokens) is None
    assert not path.exists()


def test_the_longest_saved_prefix_below_the_prompt_end_is_found(tmp_path: Path) -> None:
    tokens = list(range(3 * PREFIX_BLOCK + 7))
    cache = PrefixCache({"model": "a"})
    for end in (PREFIX_BLOCK, 2 * PREFIX_BLOCK):
        cache.put(SavedState(end, tuple(tokens[:end]), b"s"))
    found = cache.longest(tokens, below=len(tokens))
    assert found is not None and found.n_tokens == 2 * PREFIX_BLOCK
    assert (
        cache.longest(tokens, below=2 * PREFIX_BLOCK) is not None
    )  # a prefix never reaches the prompt's end
    assert cache.longest(tokens, below=2 * PREFIX_BLOCK).n_tokens == PREFIX_BLOCK  # type: ignore[union-attr]


def _events(run: Any) -> list[dict[str, Any]]:
    return [{k: v for k, v in e.model_dump().items() if k not in TIMINGS} for e in run.events]


def _run(
    backend: Any, specs: list[Any], tmp_path: Path, temperature: float
) -> dict[str, list[dict[str, Any]]]:
    protocol = CONFIG.conditions("full")
    out = {}
    for i, spec in enumerate(specs):
        settings = LoopSettings(max_turns=2, max_tokens=48, temperature=temperature, seed=7, logprobs=True,
                                protocol=protocol)  # fmt: skip
        (tmp_path / str(i)).mkdir(exist_ok=True)
        out[f"{spec.task.id}/{spec.variant}/{spec.repeat}"] = _events(
            run_trial(backend, spec, settings, tmp_path / str(i))
        )
    return out


@needs_model
@pytest.mark.model
def test_records_are_identical_with_the_cache_on_and_off_and_in_any_order(tmp_path: Path) -> None:
    """Fault runs of one task share their whole first request; with the cache the later one restores it
    (restored_tokens > 0), and every event of every trial is the same as without the cache, whichever trial ran
    first and whether the states came from memory or from disk."""
    from slmbench.models.registry import open_backend

    specs = trial_plan(task_index()["IR-1"], 1, "fault")[:2] + trial_plan(task_index()["SCH-1"], 1)
    assert len(specs) == 3 and len(FAULT_KINDS) >= 2
    off = open_backend("smollm2-135m", SMOLLM, n_ctx=2048, prefix_cache=False)
    without = _run(off, specs, tmp_path, 0.7)
    on = open_backend("smollm2-135m", SMOLLM, n_ctx=2048, prefix_cache=True, prefix_cache_dir=tmp_path / "c")
    forward = _run(on, specs, tmp_path, 0.7)
    on.close()
    again = open_backend(
        "smollm2-135m", SMOLLM, n_ctx=2048, prefix_cache=True, prefix_cache_dir=tmp_path / "c"
    )
    backward = _run(again, list(reversed(specs)), tmp_path, 0.7)  # from the disk cache, in another order
    assert forward == without
    assert backward == without
    again.close()
    on = open_backend("smollm2-135m", SMOLLM, n_ctx=2048, prefix_cache=True, prefix_cache_dir=tmp_path / "d")
    specs_restored = []
    for spec in specs:
        settings = LoopSettings(max_turns=1, max_tokens=8, protocol=CONFIG.conditions("full"))
        run = run_trial(on, spec, settings, tmp_path)
        first = next(e for e in run.events if isinstance(e, ModelResponse))
        specs_restored.append(first.restored_tokens)
    assert specs_restored[0] == 0  # an empty cache
    assert (
        specs_restored[1] >= PREFIX_BLOCK
    )  # the second fault run restores its whole first request but a block


@needs_model
@pytest.mark.model
def test_each_generated_token_has_its_log_probability() -> None:
    from slmbench.backends.base import GenerationOptions
    from slmbench.models.registry import open_backend

    backend = open_backend("smollm2-135m", SMOLLM, n_ctx=1024, prefix_cache=False)
    reply = backend.chat(
        [{"role": "user", "content": "Count to five."}], None, GenerationOptions(max_tokens=12, logprobs=True)
    )
    assert reply.logprobs is not None and len(reply.logprobs) >= reply.completion_tokens > 0
    assert all(lp <= 0 and math.isfinite(lp) for lp in reply.logprobs)
    plain = backend.chat(
        [{"role": "user", "content": "Count to five."}], None, GenerationOptions(max_tokens=12)
    )
    assert plain.logprobs is None and plain.text == reply.text
