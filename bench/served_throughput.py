"""Trials per minute of a served model with N trials in flight, against the sequential run and the in-process backend.

For each N (default 1, 2, 4, 8) llama.cpp's own ``llama-server`` (``make llama-server``) is started on 127.0.0.1
with N parallel slots (``--parallel N``, each slot the model's context window, ``--jinja``), the same shard (the
given tasks, T=0) is run through the ``openai`` backend with ``concurrency: N``, and the server is stopped by its
PID; the clock runs from the first trial to the last record (the server's start and the model's load are not
counted). The same shard then runs sequentially in-process through the ``llamacpp`` backend. Printed: trials per
minute, the ratio to the served sequential run (N=1) and to the in-process run, and the infrastructure errors.
The figures, the machine (``lscpu``) and the command go to ``--out`` (docs/benchmarks/served_throughput.md, which
docs/models.md links). It loads a model and uses every core: run it on an otherwise idle machine (no shard
running):

    .venv/bin/python bench/served_throughput.py [--model smollm2-135m] [--tasks DA-1,SCH-1,...] [--n 1 2 4 8]
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

from _report import Report, add_report_options

from slmbench.backends.llamacpp_backend import usable_cpus
from slmbench.backends.openai_backend import OpenAISettings
from slmbench.config import ModelSpec, load_config
from slmbench.models.llama_server import LlamaServer
from slmbench.models.registry import open_backend
from slmbench.models.weights import verify
from slmbench.records.compare import compare_shards
from slmbench.records.fingerprint import git_commit
from slmbench.records.ledger import iter_records
from slmbench.run.key import ShardKey
from slmbench.run.plan import Shard
from slmbench.run.runner import ShardRun, run_shard

TASKS = "DA-1,SCH-1,COM-1,IR-1,IR-3,MSR-3,DM-3,COD-1"


@dataclass(frozen=True)
class Run:
    """One timed shard."""

    label: str
    n: int
    trials: int
    seconds: float
    infra_errors: int
    once: bool
    """Every planned trial recorded exactly once."""
    records: Path
    same_as_sequential: str = "-"
    """Of the trials, how many have a record equal to the sequential served run's, timings aside."""

    @property
    def per_minute(self) -> float:
        return 60.0 * self.trials / self.seconds


def _shard(model: str, tasks: tuple[str, ...], repeats: int, n: int, args: argparse.Namespace) -> ShardRun:
    key = ShardKey(model, "capability", 0.0, "native", "repaired")
    return ShardRun(
        Shard(key, repeats, tasks),
        base_seed=20261129,
        max_turns=args.max_turns,
        budget_s=300.0,
        max_tokens=args.max_tokens,
        concurrency=n,
    )


def _timed(label: str, shard: ShardRun, spec: ModelSpec, out: Path) -> Run:
    started = time.perf_counter()
    run_shard(shard, lambda: open_backend(shard.key.model, spec), out, progress=False)
    seconds = time.perf_counter() - started
    records = [r for _, r in iter_records(out)]
    infra = sum(r.outcome == "infra_error" for r in records)
    ids = [r.trial_id for r in records]
    once = len(ids) == len(set(ids)) == len(shard.shard.tasks) * shard.shard.repeats
    return Run(label, shard.concurrency, len(records), seconds, infra, once, out)


def machine() -> str:
    """The CPU as ``lscpu`` names it, with its count."""
    fields = dict(
        line.split(":", 1)
        for line in subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines()
        if ":" in line
    )
    return f"{fields.get('Model name', '?').strip()}, {fields.get('CPU(s)', '?').strip()} CPUs"


def report(runs: list[Run], inprocess: Run | None, header: list[str]) -> list[str]:
    """The table of figures, as Markdown lines."""
    base = next((r for r in runs if r.n == 1), None)
    lines = [
        *header,
        "",
        "| run | in flight | trials | seconds | trials/min | vs N=1 | vs in-process | infra errors | each trial once |"
        " records equal to N=1 |",
    ]
    lines.append("|---|---|---|---|---|---|---|---|---|---|")
    for run in [*runs, *([inprocess] if inprocess else [])]:
        vs_seq = f"{run.per_minute / base.per_minute:.2f}" if base else "-"
        vs_inp = f"{run.per_minute / inprocess.per_minute:.2f}" if inprocess else "-"
        lines.append(
            f"| {run.label} | {run.n} | {run.trials} | {run.seconds:.1f} | {run.per_minute:.1f} | {vs_seq} | "
            f"{vs_inp} | {run.infra_errors} | {'yes' if run.once else 'NO'} | {run.same_as_sequential} |"
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", type=Path, default=Path("config.yaml"))
    parser.add_argument("--model", default="smollm2-135m", help="an embedded model of the config")
    parser.add_argument("--tasks", default=TASKS, help="comma-separated capability task ids")
    parser.add_argument("--repeats", type=int, default=1, help="repeats of each task")
    parser.add_argument(
        "--n", type=int, nargs="+", default=[1, 2, 4, 8], help="trials in flight (server slots)"
    )
    parser.add_argument("--threads", type=int, default=usable_cpus(), help="the server's threads")
    parser.add_argument("--max-turns", type=int, default=5)
    parser.add_argument("--max-tokens", type=int, default=256)
    parser.add_argument("--no-inprocess", action="store_true", help="skip the in-process llamacpp run")
    add_report_options(parser, "served_throughput")
    args = parser.parse_args()
    figures = Report("served_throughput", args)

    load_at_start = os.getloadavg()[0]
    spec = load_config(args.config).models[args.model]
    gguf = verify(spec)
    tasks = tuple(t for t in args.tasks.split(",") if t)
    served_id = f"{args.model}-served"
    runs: list[Run] = []
    with tempfile.TemporaryDirectory(prefix="served-bench-") as tmp:
        # each N in flight against N slots; then the controls: N=1 again (is the server deterministic run to run?)
        # and N=1 against the most slots (does the slot layout alone change a greedy reply?)
        plan = [(n, n, "llama-server") for n in args.n]
        if 1 in args.n:
            plan += [(1, 1, "llama-server, rerun")]
            plan += [(1, max(args.n), f"llama-server, {max(args.n)} slots")] if max(args.n) > 1 else []
        for n, slots, label in plan:
            with LlamaServer(
                gguf, args.model, parallel=slots, n_ctx=spec.n_ctx, threads=args.threads
            ) as server:
                served = OpenAISettings.model_validate(
                    {
                        **spec.model_dump(include=set(ModelSpec.model_fields) - {"weights"}),
                        "backend": "openai",
                        "base_url": server.base_url,
                        "served_model": args.model,
                        "concurrency": n,
                    }
                )
                shard = _shard(served_id, tasks, args.repeats, n, args)
                runs.append(_timed(label, shard, served, Path(tmp) / f"served_{len(runs)}.jsonl"))
            print(f"{label}, {n} in flight: {runs[-1].per_minute:.1f} trials/min", file=sys.stderr)
        base = next((r for r in runs if r.n == 1), None)
        for i, run in enumerate(runs):
            if base is not None and run is not base:
                c = compare_shards(base.records, run.records)
                runs[i] = replace(run, same_as_sequential=f"{len(c.same)} of {run.trials}")
        inprocess = None
        if not args.no_inprocess:
            shard = _shard(args.model, tasks, args.repeats, 1, args)
            inprocess = _timed("in-process llamacpp", shard, spec, Path(tmp) / "inprocess.jsonl")
    header = [
        "# Served throughput (bench/served_throughput.py)",
        "",
        f"Machine: {machine()}; load average {load_at_start:.1f} at the start; commit {git_commit()};"
        f" {dt.date.today().isoformat()}.",
        f"Model {args.model} ({spec.quantisation}); capability tasks {', '.join(tasks)} x {args.repeats}, T=0,"
        f" max_turns {args.max_turns}, max_tokens {args.max_tokens}; llama-server with --parallel N and"
        f" {args.threads} threads, its prompt cache on (the server's default). 'Records equal to N=1': trials whose"
        " record equals the sequential served run's with timings, fingerprint and provenance aside"
        " (slmbench.records.compare): at T=0, whether batching requests, or the server's slot layout alone"
        " (the sequential run against the most slots), changed a greedy reply; the rerun is the control.",
        "",
        "Command: `.venv/bin/python bench/served_throughput.py " + " ".join(sys.argv[1:]) + "`",
    ]
    lines = report(runs, inprocess, header)
    print("\n".join(lines))
    figures.write("Trials per minute against a llama-server with N trials in flight (table above).")


if __name__ == "__main__":
    main()
