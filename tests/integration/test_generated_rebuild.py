"""A clean rebuild of paper/generated from the committed raw data equals the committed files byte for byte.

The workflow runs in a fresh directory that links the repository's code and raw data (read only: no rule writes
there) and builds every file of ``paper/generated`` from nothing: tidy, the replay, the positive control, the
baselines, every topic, the macros, the tables, the appendix and the text (from the linked templates). Floats are written at a stated precision
(``FLOAT_DIGITS`` significant digits), so the files are the same on any CPU; ``provenance.json`` also names the
package's source hash, so it must be rebuilt and committed with every edit of the package.

Where LaTeX is installed the same workflow builds the PDF too, from the committed main.tex: its main text ends
within ``MAIN_TEXT_PAGES`` pages, and it prints its figures at the width the figure style draws them for.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from slmbench.figures.style import PRINT_WIDTH
from slmbench.paper.sections import MAIN_TEXT_PAGES

ROOT = Path(__file__).resolve().parents[2]
GENERATED = ROOT / "paper" / "generated"
LINKED = ("code", "data/raw", "data/eligibility", "data/teacher_forcing", "paper/templates")
COPIED = ("Snakefile", "config.yaml", "data/external", "paper/main.tex", "paper/references.bib")
"""Copied, not linked: the importer records a published file's path relative to the working directory, which a
link would resolve out of; the PDF is built beside main.tex."""

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


def _snakemake(work: Path, *targets: str) -> None:
    """Snakemake builds ``targets`` in ``work`` with this interpreter's environment, or the test fails."""
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


@pytest.fixture(scope="module")
def rebuilt(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The workflow run from nothing in a fresh directory: every file of paper/generated and, where LaTeX is
    installed, the PDF."""
    work = rebuild_workdir(tmp_path_factory.mktemp("rebuild"))
    targets = [f"paper/generated/{p.name}" for p in sorted(GENERATED.iterdir())]
    if shutil.which("latexmk"):
        targets.append("paper/main.pdf")
    _snakemake(work, *targets)
    return work


def test_a_clean_rebuild_equals_the_committed_generated_files(rebuilt: Path) -> None:
    committed = sorted(p.name for p in GENERATED.iterdir())
    generated = rebuilt / "paper" / "generated"
    assert sorted(p.name for p in generated.iterdir()) == committed
    differ = [
        name for name in committed if (generated / name).read_bytes() != (GENERATED / name).read_bytes()
    ]
    assert differ == [], f"rebuilt files differ from the committed ones: {differ} (rebuild and commit them)"


@pytest.mark.skipif(shutil.which("latexmk") is None, reason="LaTeX is not installed (make test installs it)")
def test_the_main_text_ends_within_its_pages_and_figures_print_at_their_drawn_width(rebuilt: Path) -> None:
    """main.tex labels the end of the main text (its floats flushed before it) and logs the width it prints
    figures at; the references and the appendices do not count."""
    aux = (rebuilt / "paper" / "main.aux").read_text(encoding="utf-8", errors="replace")
    page = re.search(r"\\newlabel\{slmbench:main-text-end\}\{\{[^}]*\}\{(\d+)\}", aux)
    assert page is not None, "main.tex no longer labels the end of the main text"
    assert int(page.group(1)) <= MAIN_TEXT_PAGES, f"the main text ends on page {page.group(1)}"
    log = (rebuilt / "paper" / "main.log").read_text(encoding="utf-8", errors="replace")
    width = re.search(r"slmbench: figures print ([0-9.]+)pt wide", log)
    assert width is not None, "main.tex no longer logs the width it prints figures at"
    assert float(width.group(1)) / 72.27 == pytest.approx(PRINT_WIDTH, abs=0.01)  # TeX points per inch


def test_verify_recomputes_every_number_of_the_clean_rebuild(rebuilt: Path) -> None:
    """``snakemake verify`` on the clean rebuild (which the first test holds equal to the committed files): every
    number tidied and analysed again from the raw records, and every plotted value, match what was built."""
    _snakemake(rebuilt, "verify")
    log = (rebuilt / "logs" / "analysis" / "verify.log").read_text(encoding="utf-8")
    assert re.search(r"\b\d{4,} numbers match", log), log[-2000:]
