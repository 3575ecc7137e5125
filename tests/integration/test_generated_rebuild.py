"""A clean rebuild of paper/generated from the committed raw data equals the committed files byte for byte.

The workflow runs in a fresh directory that links the repository's code and raw data (read only: no rule writes
there) and builds every file of ``paper/generated`` from nothing: tidy, the replay, the positive control, the
baselines, every topic, the macros, the tables, the appendix and the text (from the linked templates). Floats are written at a stated precision
(``FLOAT_DIGITS`` significant digits), so the files are the same on any CPU; ``provenance.json`` also names the
package's source hash, so it must be rebuilt and committed with every edit of the package.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GENERATED = ROOT / "paper" / "generated"
LINKED = ("code", "data/raw", "data/eligibility", "paper/templates")
COPIED = ("Snakefile", "config.yaml", "data/external")
"""Copied, not linked: the importer records a published file's path relative to the working directory, which a
link would resolve out of."""

pytestmark = pytest.mark.slow


def rebuild_workdir(work: Path) -> Path:
    """The workflow in ``work``: ``COPIED`` copied, ``LINKED`` linked."""
    for name in COPIED:
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree if (ROOT / name).is_dir() else shutil.copy)(ROOT / name, work / name)
    for name in LINKED:
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).symlink_to(ROOT / name, target_is_directory=True)
    return work


def test_a_clean_rebuild_equals_the_committed_generated_files(tmp_path: Path) -> None:
    work = rebuild_workdir(tmp_path)
    committed = sorted(p.name for p in GENERATED.iterdir())
    targets = [f"paper/generated/{name}" for name in committed]
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    run = subprocess.run(
        [sys.executable, "-m", "snakemake", *targets, "--cores", "2"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-4000:]
    rebuilt = work / "paper" / "generated"
    assert sorted(p.name for p in rebuilt.iterdir()) == committed
    differ = [name for name in committed if (rebuilt / name).read_bytes() != (GENERATED / name).read_bytes()]
    assert differ == [], f"rebuilt files differ from the committed ones: {differ} (rebuild and commit them)"
