"""The CI smoke study: a real model (SmolLM2-135M via llama.cpp) on a handful of tasks, through the whole chain
(trials → raw → tidy → numbers → figures → PDF) in a temporary copy of the workflow, then `verify`."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest
from tests.fixtures.paper_text import problems, prose, text_of
from tests.fixtures.pdf_links import pdf_uris
from tests.integration.smoke_workdir import make_workdir, snakemake

from slmbench.config import load_config
from slmbench.models.weights import weights_path
from slmbench.paper import study_facts
from slmbench.paper.sections import drawn_figures

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


def test_the_pdf_exists_and_its_text_is_true_for_the_study(study: Path) -> None:
    assert (study / "paper" / "main.pdf").stat().st_size > 10_000
    config = load_config(study / "config.yaml")
    trials = pd.read_parquet(study / "data" / "processed" / "trials.parquet")
    facts = study_facts(config, trials)
    assert facts.ran == {"capability"}  # its config names no published study, so none is imported
    assert problems(study / "paper", config, facts) == []
    assert "smollm2-135m" in prose(text_of(study / "paper"))
    log = (study / "paper" / "main.log").read_text(errors="replace")
    assert "undefined references" not in log and "Reference `" not in log
    drawn = {p.name for p in (study / "figures").glob("fig_*.pdf")}
    assert drawn == {f"fig_{name}.pdf" for name in drawn_figures(config)} and "fig_radar.pdf" not in drawn


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
    used = set(re.findall(r"\\res\{([^}]+)\}", re.sub(r"(?<!\\)%.*", "", text_of(study / "paper"))))
    linked = {link.removeprefix("../site/numbers/").removesuffix(".html") for link in links}
    assert used and linked == used
    assert all((study / "paper" / link).resolve().is_file() for link in links)
    assert (study / "site" / "index.html").is_file() and list((study / "site" / "trials").glob("*.js"))


def test_the_report_holds_the_figures_and_tables(study: Path) -> None:
    result = snakemake(study, "paper", "--report", "report.html")
    assert result.returncode == 0, result.stderr[-3000:]
    report = (study / "report.html").read_text(errors="replace")
    assert "Figures" in report and "Tables" in report and "fig_failure_classes.pdf" in report


def test_editing_one_figure_module_reruns_that_figure_the_macros_and_the_pdf(study: Path) -> None:
    """No topic reruns; ``macros`` (seconds) does, because provenance.json records the package's source hash, and
    with it the text (which reads the numbers)."""
    module = study / "code" / "slmbench" / "figures" / "failure_classes.py"
    module.write_text(module.read_text() + "\n# edited\n")  # Snakemake ignores a bare touch (same checksum)
    result = snakemake(study, "paper", "-n")
    assert result.returncode == 0, result.stderr[-2000:]
    jobs = set(re.findall(r"^(\w+)\s+\d+$", result.stdout + result.stderr, flags=re.M)) - {"total"}
    assert jobs == {"fig", "macros", "paper_text", "pdf", "paper"}
