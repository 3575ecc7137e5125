"""Trials per hour with and without the prefix cache, and whether the records are the same (timings aside).

Two workloads per model, each run twice through the real agent loop under the primary protocol: once with every
prompt evaluated from its first token (cache off), once with saved prefix states (cache on, starting from an empty
cache folder). "pass" is one trial of each capability task at T = 0; "samples" is k = 5 trials of each task at
T = 0.7 (the samples of one task share their whole first request). Printed per workload: trials per hour off and
on, their ratio, the share of prompt tokens evaluated with the cache on, and whether every event of every trial
is the same in both runs apart from timings (``t``, ``latency_s``, ``wall_s``, ``restored_tokens``). Target: at
least 1.4 x on the 1.5B model's samples. Run with nothing else busy on the machine:

    .venv/bin/python bench/prefix_cache.py [--models M ...] [--tasks IR-1 SCH-1 ...] [--k 5]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any

from _report import Report, add_report_options

from slmbench.config import load_config, model_spec
from slmbench.harness.loop import LoopSettings, run_trial
from slmbench.models.registry import open_backend
from slmbench.records.schema import ModelResponse
from slmbench.tasks.loader import load_suite
from slmbench.tasks.variants import TrialSpec, trial_plan

TIMINGS = {"t", "latency_s", "wall_s", "restored_tokens"}


def workload(task_ids: list[str] | None, k: int) -> list[TrialSpec]:
    """One trial of each task (k = 1) or k trials of each (samples), in suite order."""
    tasks = [t for t in load_suite("capability") if not task_ids or t.id in task_ids]
    return [spec for task in tasks for spec in trial_plan(task, k)]


def run(model: str, specs: list[TrialSpec], temperature: float, cache: Path | None) -> dict[str, Any]:
    """Every trial of ``specs`` through one backend: seconds, prompt tokens and those evaluated, and the events."""
    config = load_config()
    backend = open_backend(
        model, model_spec(config, model), prefix_cache=cache is not None, prefix_cache_dir=cache
    )
    protocol = config.conditions(config.protocol)
    events, prompt, evaluated = [], 0, 0
    started = time.perf_counter()
    for i, spec in enumerate(specs):
        settings = LoopSettings(
            max_turns=config.max_turns, budget_s=config.trial_budget_s, max_tokens=config.max_tokens,
            temperature=temperature, seed=1000 + i, logprobs=True, protocol=protocol,
        )  # fmt: skip
        with tempfile.TemporaryDirectory() as workdir:
            trial = run_trial(backend, spec, settings, Path(workdir))
        events.append([{k: v for k, v in e.model_dump().items() if k not in TIMINGS} for e in trial.events])
        for e in trial.events:
            if isinstance(e, ModelResponse):
                prompt += e.prompt_tokens
                evaluated += e.prompt_tokens - e.cached_tokens - e.restored_tokens
    seconds = time.perf_counter() - started
    backend.close()
    return {"seconds": seconds, "prompt": prompt, "evaluated": evaluated, "events": events}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--models", nargs="*", default=["qwen2.5-coder-1.5b", "qwen2.5-coder-0.5b"])
    parser.add_argument("--tasks", nargs="*", default=None, help="capability task ids (default: all)")
    parser.add_argument("--k", type=int, default=5, help="samples of each task at T = 0.7")
    add_report_options(parser, "prefix_cache")
    args = parser.parse_args()
    figures = Report("prefix_cache", args)
    print(f"{'model':<20} {'workload':<9} {'trials':>6} {'off t/h':>8} {'on t/h':>8} {'ratio':>6} "
          f"{'evaluated':>9} {'same':>5}")  # fmt: skip
    for model in args.models:
        for name, temperature, k in (("pass", 0.0, 1), ("samples", 0.7, args.k)):
            specs = workload(args.tasks, k)
            off = run(model, specs, temperature, None)
            with tempfile.TemporaryDirectory() as folder:
                on = run(model, specs, temperature, Path(folder))
            per_hour = [3600 * len(specs) / r["seconds"] for r in (off, on)]
            print(
                f"{model:<20} {name:<9} {len(specs):>6} {per_hour[0]:>8.1f} {per_hour[1]:>8.1f} "
                f"{per_hour[1] / per_hour[0]:>6.2f} {on['evaluated'] / max(on['prompt'], 1):>9.1%} "
                f"{'yes' if on['events'] == off['events'] else 'NO':>5}",
                flush=True,
            )
    figures.write((__doc__ or "").splitlines()[0])


if __name__ == "__main__":
    main()
