"""What keeping each generated token's log-probability costs: generation time with it on and off.

The same loaded model answers the same prompt greedily (the reply is identical either way, which the bench
checks), alternating off and on (ABBA) from an empty KV cache with the prompt state restored, so only the
generation differs; the overhead printed is the median over repeats of (on / off - 1). Target: under 5 %. Run with
nothing else busy on the machine:

    .venv/bin/python bench/logprobs_overhead.py [--models M ...] [--repeats 6] [--tokens 128]
"""

from __future__ import annotations

import argparse
import statistics
import time

from _report import Report, add_report_options

from slmbench.backends.base import GenerationOptions
from slmbench.config import load_config
from slmbench.models.registry import open_backend

PROMPT = "Write a long, detailed story about a journey along a river, at least two hundred words."


def timed(backend: object, tokens: int, logprobs: bool) -> tuple[float, str]:
    """Seconds of one greedy reply of ``tokens`` tokens from an empty KV cache, and its text."""
    backend.reset()  # type: ignore[attr-defined]
    options = GenerationOptions(max_tokens=tokens, logprobs=logprobs)
    started = time.perf_counter()
    reply = backend.chat([{"role": "user", "content": PROMPT}], None, options)  # type: ignore[attr-defined]
    return time.perf_counter() - started, reply.text


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--models", nargs="*", default=["smollm2-135m", "qwen2.5-coder-1.5b"])
    parser.add_argument("--repeats", type=int, default=6)
    parser.add_argument("--tokens", type=int, default=128)
    add_report_options(parser, "logprobs_overhead")
    args = parser.parse_args()
    figures = Report("logprobs_overhead", args)
    config = load_config()
    print(f"{'model':<20} {'off s':>7} {'on s':>7} {'overhead':>8} {'same reply':>10}")
    for model in args.models:
        backend = open_backend(model, config.models[model], prefix_cache=False)
        timed(backend, args.tokens, False)  # warm-up
        ratios, offs, ons, same = [], [], [], True
        for i in range(args.repeats):
            order = (False, True) if i % 2 == 0 else (True, False)
            got = {flag: timed(backend, args.tokens, flag) for flag in order}
            offs.append(got[False][0])
            ons.append(got[True][0])
            ratios.append(got[True][0] / got[False][0] - 1)
            same = same and got[True][1] == got[False][1]
        backend.close()  # type: ignore[attr-defined]
        print(
            f"{model:<20} {statistics.median(offs):>7.2f} {statistics.median(ons):>7.2f} "
            f"{statistics.median(ratios):>8.1%} {'yes' if same else 'NO':>10}",
            flush=True,
        )
    figures.write((__doc__ or "").splitlines()[0])


if __name__ == "__main__":
    main()
