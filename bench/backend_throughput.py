"""Prompt and generation tokens/s of each embedded model: slmbench's llamacpp backend vs llama-cpp-python direct.

Prints one line per model with both figures and their ratio (target: ratio >= 0.97). Run with nothing else
busy on the machine:  .venv/bin/python bench/backend_throughput.py [--models M ...] [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from slmbench.backends.base import GenerationOptions
from slmbench.config import load_config
from slmbench.models.registry import open_backend
from slmbench.models.weights import weights_path

PROMPT = (
    "Here is a list of facts about lakes, rivers and mountains. "
    + " ".join(f"Fact {i}: the value of item {i} is {i * 7 % 31}." for i in range(40))
    + " Now write a long, detailed story about a journey along a river, at least two hundred words."
)
N_GEN = 96


def _measure_once(run: Any, reset: Any) -> tuple[float, float]:
    """Prompt tokens/s (one-token generation) and generation tokens/s of one cold-cache measurement."""
    reset()
    started = time.perf_counter()
    n_prompt, _ = run(1)
    prompt_time = time.perf_counter() - started
    reset()
    started = time.perf_counter()
    _, n_gen = run(N_GEN)
    elapsed = time.perf_counter() - started
    return n_prompt / prompt_time, max(n_gen - 1, 1) / max(elapsed - prompt_time, 1e-9)


def _interleaved(a: tuple[Any, Any], b: tuple[Any, Any], repeats: int) -> tuple[list[Any], list[Any]]:
    """Measure a and b alternately (ABBA order), so drift of the machine hits both alike."""
    first: list[Any] = []
    second: list[Any] = []
    for i in range(repeats):
        order = [(a, first), (b, second)] if i % 2 == 0 else [(b, second), (a, first)]
        for (run, reset), sink in order:
            sink.append(_measure_once(run, reset))
    return first, second


def _median(samples: list[tuple[float, float]]) -> tuple[float, float]:
    return statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples)


def bench_model(model_id: str, repeats: int, n_threads: int | None) -> dict[str, float]:
    """Both measurements for one model, loaded with the same n_ctx and threads."""
    from llama_cpp import Llama

    spec = load_config().models[model_id]
    backend = open_backend(model_id, spec, n_ctx=2048, n_threads=n_threads)
    llm = backend._llm  # type: ignore[attr-defined]
    messages = [{"role": "user", "content": PROMPT}]

    def ours(max_tokens: int) -> tuple[int, int]:
        reply = backend.chat(messages, None, GenerationOptions(max_tokens=max_tokens, temperature=0.0))
        return reply.prompt_tokens, reply.completion_tokens

    prompt_text, stops = backend.render(messages, None)  # type: ignore[attr-defined]
    direct_llm = Llama(
        model_path=str(weights_path(spec)),
        n_ctx=2048,
        n_threads=llm.n_threads,
        n_threads_batch=llm.n_threads,
        verbose=False,
    )

    def direct(max_tokens: int) -> tuple[int, int]:
        out: Any = direct_llm.create_completion(
            prompt_text, max_tokens=max_tokens, temperature=0.0, stop=stops
        )
        return out["usage"]["prompt_tokens"], out["usage"]["completion_tokens"]

    ours_samples, direct_samples = _interleaved((ours, llm.reset), (direct, direct_llm.reset), repeats)
    ours_rates, direct_rates = _median(ours_samples), _median(direct_samples)
    direct_llm.close()
    backend.close()
    return {
        "prompt_ours": ours_rates[0],
        "prompt_direct": direct_rates[0],
        "gen_ours": ours_rates[1],
        "gen_direct": direct_rates[1],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--models", nargs="*", default=None)
    parser.add_argument("--repeats", type=int, default=6)
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args()
    config = load_config()
    models = args.models or [m for m, s in config.models.items() if s.backend == "llamacpp"]
    print(
        f"{'model':<22} {'prompt t/s ours':>15} {'direct':>8} {'ratio':>6}   {'gen t/s ours':>12} {'direct':>8} {'ratio':>6}"
    )
    for model_id in models:
        r = bench_model(model_id, args.repeats, args.threads)
        print(
            f"{model_id:<22} {r['prompt_ours']:>15.1f} {r['prompt_direct']:>8.1f} "
            f"{r['prompt_ours'] / r['prompt_direct']:>6.3f}   {r['gen_ours']:>12.1f} {r['gen_direct']:>8.1f} "
            f"{r['gen_ours'] / r['gen_direct']:>6.3f}"
        )


if __name__ == "__main__":
    main()
