"""Check a study that `make slurm-test` ran through SLURM: ``python tests/integration/slurm/check_study.py WORK``.

WORK is the study's working copy after `snakemake trials` and `snakemake paper`, with ``check/manifest.json``
written by `slmbench tidy` (which validated every record against the schema on the way) and the two Snakemake
logs ``trials.log`` and ``paper.log``. Passes when every shard the config plans is there with exactly the
trials `slmbench run` plans for it and nothing else, each trial shard was a SLURM job, and the PDF exists.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from slmbench.config import load_config
from slmbench.models.resources import count_trials


def planned(work: Path) -> dict[str, int]:
    """Raw shard path (relative to WORK) → trials planned, for every shard of the `trials` target."""
    study = load_config(work / "config.yaml")
    tasks = tuple(study.tasks)
    base = f"{study.scaffold}_{study.parser_mode}"
    t0 = min(study.temperatures)
    out: dict[str, int] = {}
    for model, spec in study.models.items():
        raw = f"data/raw/slmbench/{model}"
        for suite in study.suites:
            for t in study.temperatures:
                out[f"{raw}/{suite}_T{t:g}_{base}.jsonl"] = count_trials(suite, tasks)
        if study.null_control:
            nc = study.null_control
            out[f"{raw}/null_control_T0_{base}.jsonl"] = count_trials(
                "capability", tuple(nc.tasks), nc.reruns
            )
        if study.scaffold_comparison:
            for suite in study.scaffold_comparison.suites:
                for scaffold in study.scaffold_comparison.scaffolds:
                    name = f"{suite}_T{t0:g}_{scaffold}_{study.parser_mode}.jsonl"
                    out[f"{raw}/{name}"] = count_trials(suite, tasks)
        if study.context_comparison:
            for suite in study.context_comparison.suites:
                for n_ctx in study.context_comparison.n_ctx:
                    if n_ctx != spec.n_ctx:
                        out[f"{raw}/{suite}_T{t0:g}_{base}_ctx{n_ctx}.jsonl"] = count_trials(suite, tasks)
    return out


def main(work: Path) -> int:
    problems = []
    manifest = json.loads((work / "check" / "manifest.json").read_text())
    recorded = {f["path"]: f["n_records"] for f in manifest["raw_files"]}
    want = planned(work)
    for path, n in sorted(want.items()):
        if path not in recorded:
            problems.append(f"{path}: planned, not recorded")
        elif recorded[path] != n:
            problems.append(f"{path}: {recorded[path]} trial(s) recorded, {n} planned")
    problems += [f"{path}: recorded, not planned" for path in sorted(set(recorded) - set(want))]
    trials_log = (work / "trials.log").read_text()
    submitted = re.findall(r"submitted with SLURM jobid (\d+)", trials_log)
    if len(submitted) < len(want):
        problems.append(f"trials.log: {len(submitted)} SLURM job(s) for {len(want)} planned shard(s)")
    paper_jobs = re.findall(r"submitted with SLURM jobid (\d+)", (work / "paper.log").read_text())
    if not paper_jobs:
        problems.append("paper.log: no SLURM job was submitted")
    pdf = work / "paper" / "main.pdf"
    if not pdf.exists() or pdf.stat().st_size < 10_000:
        problems.append(f"{pdf}: missing or empty")
    for problem in problems:
        print(f"check_study: {problem}", file=sys.stderr)
    if problems:
        return 1
    total = sum(want.values())
    print(
        f"check_study: {len(want)} shard(s), {total} trial(s) as planned, every record valid; "
        f"{len(submitted)} trial job(s) and {len(paper_jobs)} paper job(s) ran in SLURM; {pdf} written"
    )
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python tests/integration/slurm/check_study.py WORK")
    sys.exit(main(Path(sys.argv[1])))
