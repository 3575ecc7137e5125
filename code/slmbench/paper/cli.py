"""``slmbench paper-text``: render the paper's text for the study that was run."""

from __future__ import annotations

import logging
from pathlib import Path

import click
import pandas as pd

from slmbench.config import load_config
from slmbench.paper.facts import FACT_COLUMNS, StudyFacts, study_facts
from slmbench.paper.render import Renderer
from slmbench.paper.results import Results
from slmbench.paper.sections import ACROSS_MODELS, FIGURE_PARTS, render_paper

logger = logging.getLogger(__name__)
APPENDIX_TABLES = ("per_task",)
"""Tables written by the appendix rule rather than the table rule."""


def _count(results: Results, key: str) -> float:
    return results.number(key) if results.defined(key) else 0.0


def load_facts(config: Path, numbers: Path, trials: Path) -> tuple[StudyFacts, Results]:
    """The study's facts and results from its configuration, macros file and tidy trials table."""
    results = Results.from_macros(numbers)
    frame = pd.read_parquet(trials, columns=list(FACT_COLUMNS))
    facts = study_facts(
        load_config(config),
        frame,
        eligibility=_count(results, "elig.n.configs") > 0,
        external=_count(results, "ext.n.models") > 0,
    )
    return facts, results


def renderer(facts: StudyFacts, results: Results, templates: Path) -> Renderer:
    """The renderer of the study, with the registered figures and the pipeline's tables."""
    from slmbench.figures.registry import FIGURES
    from slmbench.figures.tables import TABLES

    return Renderer(
        facts=facts,
        results=results,
        templates=templates,
        figure_parts=FIGURE_PARTS,
        figures=frozenset(FIGURES),
        across_models=ACROSS_MODELS,
        tables=frozenset(TABLES) | frozenset(APPENDIX_TABLES),
    )


@click.command("paper-text")
@click.option("--config", type=click.Path(exists=True, dir_okay=False, path_type=Path), required=True)
@click.option("--numbers", type=click.Path(exists=True, dir_okay=False, path_type=Path), required=True)
@click.option("--trials", type=click.Path(exists=True, dir_okay=False, path_type=Path), required=True)
@click.option("--templates", type=click.Path(exists=True, file_okay=False, path_type=Path), required=True)
@click.option("--out-dir", type=click.Path(file_okay=False, path_type=Path), required=True)
def paper_text(config: Path, numbers: Path, trials: Path, templates: Path, out_dir: Path) -> None:
    """Render the abstract, body and appendix (text_<place>.tex) from the templates."""
    facts, results = load_facts(config, numbers, trials)
    r = renderer(facts, results, templates)
    written = render_paper(r, out_dir)
    logger.info(
        "rendered %s; ran: %s; not run: %s; figures: %s",
        ", ".join(str(p) for p in written.values()),
        ", ".join(sorted(facts.ran)),
        ", ".join(facts.not_run) or "none",
        ", ".join(r.included),
    )
