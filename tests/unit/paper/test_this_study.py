"""The project's own paper text (paper/generated/text_*.tex, as committed) is true for its study: every model it
names is configured, no undefined value is printed and every result resolves; with the tidy trials table built,
the text renders again byte for byte and no section speaks of a part that did not run."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest
from tests.fixtures.paper_text import problems, text_of

from slmbench.config import load_config
from slmbench.paper import PLACES, render_paper
from slmbench.paper.cli import load_facts, renderer
from slmbench.paper.results import Results

ROOT = Path(__file__).resolve().parents[3]
PAPER = ROOT / "paper"
TRIALS = ROOT / "data/processed/trials.parquet"
CONFIG = load_config(ROOT / "config.yaml")


def test_the_committed_text_is_true_for_the_study() -> None:
    assert problems(PAPER, CONFIG) == []


def test_the_abstract_is_short() -> None:
    import re

    abstract = (PAPER / "generated/text_abstract.tex").read_text(encoding="utf-8")
    body = re.sub(r"(?<!\\)%.*", "", abstract).replace("\\begin{abstract}", "").replace("\\end{abstract}", "")
    assert len(body.split()) <= 200
    assert len(re.findall(r"\\res\{", body)) <= 10


def test_where_the_text_asks_whether_two_conditions_are_the_same_it_gives_the_equivalence_test() -> None:
    """The serving stack, each rerun of the protocol on another CPU and the runs on one build: a McNemar p of 1 is
    no evidence that the two are the same, so each sentence carries the TOST verdict, and the design states the
    margin once."""
    text = text_of(PAPER)
    results = Results.from_macros(PAPER / "generated/numbers.tex")
    assert "\\paragraph{Serving stack.}" in text and "\\res{srv.equiv.phrase}" in text
    rerun = re.compile(r"proto\.cmp\.(rerun-[a-z0-9-]+)\.n\.pairs")
    reruns = sorted({m.group(1) for k in results.values if (m := rerun.fullmatch(k))})
    assert reruns and all(f"\\res{{proto.cmp.{r}.equiv.phrase}}" in text for r in reruns)
    assert len(re.findall(r"\\res\{[^}]+\.equiv\.margin\}", text)) == 1
    serving = results.values["srv.equiv.phrase"]
    assert "TOST" in serving and "percentage points" in serving


@pytest.mark.skipif(not TRIALS.exists(), reason="data/processed/trials.parquet not built (snakemake tidy)")
def test_the_text_renders_again_and_names_only_parts_that_ran(tmp_path: Path) -> None:
    facts, results = load_facts(ROOT / "config.yaml", PAPER / "generated/numbers.tex", TRIALS)
    render_paper(renderer(facts, results, PAPER / "templates"), tmp_path)
    for place in PLACES:
        name = f"text_{place}.tex"
        assert (tmp_path / name).read_text() == (PAPER / "generated" / name).read_text(), f"{name} is stale"
    assert problems(PAPER, CONFIG, facts) == []
    assert not pd.read_parquet(TRIALS, columns=["model"]).empty and "% section protocol\n" in text_of(PAPER)


def test_the_limits_list_every_choice_made_after_results_were_seen() -> None:
    body = " ".join((PAPER / "generated/text_body.tex").read_text(encoding="utf-8").split())
    assert CONFIG.choices_after_results
    for choice in CONFIG.choices_after_results:
        assert " ".join(choice.split()) in body
