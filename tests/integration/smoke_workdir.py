"""The smoke study's working copy: the workflow (Snakefile, rules, figure modules, external data, envs, paper
sources) with tests/integration/smoke_config.yaml as its config.yaml, in a fresh directory.

Used by the smoke test (test_smoke_study.py) and by `make slurm-test` (envs/slurm_test.sh), so both run the same
study: ``python -m tests.integration.smoke_workdir DIR`` from the repository root.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).parent


def make_workdir(work: Path, config: Path = HERE / "smoke_config.yaml") -> Path:
    """Copy the workflow into ``work`` (created if absent) with ``config`` (the smoke config) as its config.yaml;
    return ``work``."""
    work.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "Snakefile", work / "Snakefile")
    shutil.copytree(ROOT / "code" / "rules", work / "code" / "rules")
    # the package's sources are rule inputs (a figure, a topic, the shared statistics, the task files)
    shutil.copytree(
        ROOT / "code" / "slmbench", work / "code" / "slmbench", ignore=shutil.ignore_patterns("__pycache__")
    )
    shutil.copytree(ROOT / "data" / "external", work / "data" / "external")
    shutil.copytree(ROOT / "data" / "eligibility", work / "data" / "eligibility")
    shutil.copytree(ROOT / "envs", work / "envs")
    paper = work / "paper"
    paper.mkdir()
    for item in ("main.tex", "references.bib", "templates"):
        src = ROOT / "paper" / item
        (shutil.copytree if src.is_dir() else shutil.copy)(src, paper / item)
    shutil.copy(config, work / "config.yaml")
    return work


def snakemake(workdir: Path, *targets: str) -> subprocess.CompletedProcess[str]:
    """``snakemake <targets> --cores 2`` in ``workdir`` with the interpreter that runs the tests."""
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run(
        [str(Path(sys.executable).parent / "snakemake"), *targets, "--cores", "2"],
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        timeout=1500,
    )


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m tests.integration.smoke_workdir DIR")
    print(make_workdir(Path(sys.argv[1])))
