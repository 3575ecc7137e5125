"""The CI smoke study: a real model (SmolLM2-135M via llama.cpp) on a handful of tasks, through the whole chain
(trials → raw → tidy → numbers → figures → PDF) in a temporary copy of the workflow, then `verify`."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from tests.fixtures.latex_conditionals import without_branches
from tests.fixtures.pdf_links import pdf_uris
from tests.integration.smoke_workdir import make_workdir

from slmbench.config import load_config
from slmbench.models.weights import weights_path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).parent
SMOLLM = load_config(ROOT / "config.yaml").models["smollm2-135m"]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.model,
    pytest.mark.skipif(not weights_path(SMOLLM).exists(), reason="run `slmbench models fetch smollm2-135m`"),
    pytest.mark.skipif(
        shutil.which("latexmk") is None, reason="LaTeX is not installed (make test installs it)"
    ),
]


def snakemake(workdir: Path, *targets: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run(
        [str(Path(sys.executable).parent / "snakemake"), *targets, "--cores", "2"],
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        timeout=1500,
    )


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = make_workdir(tmp_path_factory.mktemp("smoke"))
    trials = snakemake(work, "trials")
    assert trials.returncode == 0, trials.stderr[-4000:]
    built = snakemake(work, "paper")
    assert built.returncode == 0, built.stderr[-4000:]
    return work


def test_the_model_ran_and_every_trial_is_recorded(study: Path) -> None:
    shards = list((study / "data" / "raw").rglob("*.jsonl"))
    assert len(shards) == 1
    records = [json.loads(line) for line in shards[0].read_text().splitlines()]
    assert sorted(r["task_id"] for r in records) == sorted(load_config(HERE / "smoke_config.yaml").tasks)
    assert all(r["fingerprint"]["backend"]["backend"] == "llamacpp" for r in records)
    assert all(any(e["type"] == "model_response" and e["raw_text"] for e in r["events"]) for r in records)


def test_the_pdf_exists_and_every_number_it_uses_is_defined(study: Path) -> None:
    assert (study / "paper" / "main.pdf").stat().st_size > 10_000
    numbers = (study / "paper" / "generated" / "numbers.tex").read_text()
    defined = set(re.findall(r"\\csname slmres@([^\\]+)\\endcsname", numbers))
    used = set()
    for tex in [study / "paper" / "main.tex", *(study / "paper" / "sections").glob("*.tex")]:
        # text guarded by \ifstudydata names the four embedded models and is skipped without their data; text
        # guarded by \ifcsname on a key is typeset only where that key is defined
        text = without_branches(tex.read_text(), {"ifstudydata", "ifcsname"}, keep_else=True)
        used |= set(re.findall(r"\\res\{([^}]+)\}", text))
    assert used and used <= defined, f"undefined: {sorted(used - defined)}"
    assert len(list((study / "figures").glob("fig_*.pdf"))) >= 16


def test_verify_recomputes_every_number_from_raw(study: Path) -> None:
    result = snakemake(study, "verify")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]


def test_a_second_run_has_nothing_to_do(study: Path) -> None:
    result = snakemake(study, "paper", "-n")
    assert result.returncode == 0
    assert "Nothing to be done" in result.stdout + result.stderr


def test_every_number_in_the_pdf_links_to_its_page_in_the_site(study: Path) -> None:
    result = snakemake(study, "site")
    assert result.returncode == 0, result.stderr[-3000:]
    links = [
        u.decode() for u in pdf_uris((study / "paper" / "main.pdf").read_bytes()) if u.startswith(b"../site/")
    ]
    always, anywhere = set(), set()
    for tex in [study / "paper" / "main.tex", *(study / "paper" / "sections").glob("*.tex")]:
        text = tex.read_text()
        anywhere |= set(re.findall(r"\\res\{([^}]+)\}", text))
        # conditional text (\ifstudydata, \ifnum on a count, \ifcsname on a key) may be skipped for this
        # study's data
        unconditional = without_branches(text, {"ifstudydata", "ifnum", "ifcsname"}, keep_else=False)
        always |= set(re.findall(r"\\res\{([^}]+)\}", unconditional))
    linked = {link.removeprefix("../site/numbers/").removesuffix(".html") for link in links}
    assert always <= linked <= anywhere
    assert all((study / "paper" / link).resolve().is_file() for link in links)
    assert (study / "site" / "index.html").is_file() and list((study / "site" / "trials").glob("*.js"))


def test_the_report_holds_the_figures_and_tables(study: Path) -> None:
    result = snakemake(study, "paper", "--report", "report.html")
    assert result.returncode == 0, result.stderr[-3000:]
    report = (study / "report.html").read_text(errors="replace")
    assert "Figures" in report and "Tables" in report and "fig_radar.pdf" in report


def test_editing_one_figure_module_reruns_that_figure_the_macros_and_the_pdf(study: Path) -> None:
    """No topic reruns; ``macros`` (seconds) does, because provenance.json records the package's source hash."""
    module = study / "code" / "slmbench" / "figures" / "radar.py"
    module.write_text(module.read_text() + "\n# edited\n")  # Snakemake ignores a bare touch (same checksum)
    result = snakemake(study, "paper", "-n")
    assert result.returncode == 0, result.stderr[-2000:]
    jobs = set(re.findall(r"^(\w+)\s+\d+$", result.stdout + result.stderr, flags=re.M)) - {"total"}
    assert jobs == {"fig", "macros", "pdf", "paper"}
