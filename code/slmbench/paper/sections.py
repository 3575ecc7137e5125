"""The paper's sections, each declared with the parts of the study it speaks of and where it goes, and the figures
the text may include with the parts they draw. A section whose parts did not run is left out (a comment says so); a
figure whose parts did not run cannot be included (the render fails). A body section that the main text covers more
fully elsewhere (``Moves``) goes to the appendix where that account is in the paper, so the main text states each
finding once and stays within ``MAIN_TEXT_PAGES``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from slmbench.analysis.topics import study_topics
from slmbench.config import StudyConfig
from slmbench.figures.registry import study_figures
from slmbench.paper.facts import COMPARISON_PARTS, PARTS, Part, StudyFacts, planned_parts
from slmbench.paper.render import Renderer
from slmbench.paper.results import Results
from slmbench.vocab import SUITES

Place = Literal["abstract", "body", "appendix"]
PLACES: tuple[Place, ...] = ("abstract", "body", "appendix")
"""The generated files main.tex inputs: ``paper/generated/text_<place>.tex``."""
SUITE_PARTS: tuple[Part, ...] = tuple(part for part in PARTS if part in SUITES)
"""The suites the text speaks of (each a part of the study); a suite with no part is not in the paper."""
MAIN_TEXT_PAGES = 9
"""The most pages the main text of the study's paper takes (title to conclusion, its figures and tables included;
the references and the appendices apart)."""


@dataclass(frozen=True)
class Moves:
    """Where a body section goes when the paper holds a fuller account of its subject: to the appendix, just before
    the appendix section ``before`` (its place there, whether or not that one is rendered; sections moving before
    the same one keep their order), wherever any of the sections ``beside`` is rendered. The main text then refers
    to it in one sentence."""

    beside: tuple[str, ...]
    before: str


@dataclass(frozen=True)
class Section:
    """A section: its template (``<name>.tex.j2``), where it goes, the parts it needs (any of ``any_of``) and the
    counts it reports that must not be zero (``counts``: result keys; a section of nothing is left out)."""

    name: str
    place: Place
    needs: tuple[Part, ...] = ()
    any_of: tuple[Part, ...] = ()
    counts: tuple[str, ...] = ()
    moves: Moves | None = None

    def applies(self, facts: StudyFacts, results: Results | None = None) -> bool:
        """Whether the study ran what this section speaks of (with ``results``: and has something of it)."""
        ran = facts.has(*self.needs) and (not self.any_of or any(facts.has(p) for p in self.any_of))
        return ran and (results is None or all(_positive(results, key) for key in self.counts))

    def wants(self) -> str:
        """What the section needs, as its left-out comment says."""
        wanted = list(self.needs) + (
            [f"any of {' or '.join(self.any_of)}"] if len(self.any_of) > 1 else list(self.any_of)
        )
        return ", ".join(wanted) + "".join(f"; or has no {key}" for key in self.counts)

    def place_in(self, rendered: frozenset[str]) -> Place:
        """Where the section goes in a paper that renders the sections ``rendered``."""
        if self.moves is not None and rendered & set(self.moves.beside):
            return "appendix"
        return self.place


def _positive(results: Results, key: str) -> bool:
    return results.defined(key) and results.number(key) > 0


SECTIONS: tuple[Section, ...] = (
    Section("title", "abstract", any_of=SUITE_PARTS),
    Section("abstract", "abstract", any_of=SUITE_PARTS),
    Section("introduction", "body", any_of=SUITE_PARTS),
    Section("design", "body", any_of=SUITE_PARTS),
    Section("protocol", "body", needs=("protocol", "legacy")),
    Section(  # further harness choices: beside the protocol study, its detail
        "comparisons",
        "body",
        any_of=(*COMPARISON_PARTS, "twins"),
        moves=Moves(beside=("protocol",), before="appendix_comparisons"),
    ),
    Section("capability", "body", needs=("capability",)),
    Section(  # the capability section states its key number
        "boundary",
        "body",
        any_of=SUITE_PARTS,
        counts=("boundary.n.calls",),
        moves=Moves(beside=("capability",), before="appendix_reliability"),
    ),
    Section(  # the published study's suite: beside reliability on every task, its mirror
        "reliability",
        "body",
        needs=("reliability",),
        moves=Moves(beside=("task_reliability",), before="appendix_reliability"),
    ),
    Section("task_reliability", "body", any_of=("sampling", "paraphrases", "faults", "safety_suite")),
    Section("task_consistency", "body", needs=("sampling",)),  # a subsection of task_reliability
    Section("task_robustness", "body", any_of=("paraphrases", "faults", "safety_suite")),  # a subsection too
    Section("eligibility", "body", needs=("eligibility",)),
    Section("limits", "body", any_of=SUITE_PARTS),
    Section("conclusion", "body", any_of=SUITE_PARTS),
    Section("appendix_design", "appendix", any_of=SUITE_PARTS),
    Section("appendix_harness", "appendix", any_of=SUITE_PARTS),
    Section("appendix_protocol", "appendix", needs=("protocol",)),
    Section("appendix_comparisons", "appendix", any_of=COMPARISON_PARTS),
    Section("appendix_capability", "appendix", needs=("capability",)),
    Section("appendix_reliability", "appendix", any_of=SUITE_PARTS),
    Section("appendix_eligibility", "appendix", needs=("eligibility",)),
    Section("appendix_reproduction", "appendix", needs=("external",)),
    Section("appendix_transcripts", "appendix", needs=("capability",)),
)
"""Every section, in the order of the paper (a section that moves goes to the appendix before its ``before``)."""

FIGURE_PARTS: Mapping[str, tuple[Part, ...]] = {
    "accuracy_vs_params": ("capability",),
    "group_accuracy": ("capability",),
    "failure_classes": ("capability",),
    "latency_vs_accuracy": ("capability",),
    "reliability_bars": ("reliability",),
    "reliability_dimensions": ("reliability",),
    "composite_reliability": ("reliability",),
    "composite_vs_params": ("reliability",),
    "capability_vs_reliability": SUITE_PARTS,
    "radar": SUITE_PARTS,
    "perturbation_heatmap": ("reliability",),
    "fault_heatmap": ("reliability",),
    "safety_breakdown": ("reliability",),
    "cost_vs_reliability": ("reliability",),
    "parser_modes": ("capability",),
    "scaffold_comparison": ("scaffold",),
    "context_cap": ("context",),
    "protocol_ablation": ("protocol", "legacy"),
    "protocol_temperature": ("protocol", "sweep"),
    "task_consistency": ("sampling",),
    "accuracy_vs_temperature": ("external",),
    "temperature_sensitivity": ("external",),
    "external_comparison": ("external",),
    "eligibility_margin_vs_size": ("eligibility",),
    "eligibility_margin_vs_quant": ("eligibility",),
    "cascade_cost_accuracy": ("eligibility",),
    "task_robustness": (),
}
"""The figures the text may include, with the parts each draws from (a figure of another part shows no data; none
named: its panels are each of a part of their own, ``task_robustness``'s of ``paraphrases``, ``faults`` and
``safety_suite``, and the text includes it where any of them ran)."""


ACROSS_MODELS: frozenset[str] = frozenset({"accuracy_vs_params", "latency_vs_accuracy"})
"""The figures that place models against one another (size, wall time): a study of one model has no such figure."""


def drawn_figures(config: StudyConfig) -> tuple[str, ...]:
    """The figures the study of ``config`` draws: those whose every topic it computes (``study_figures``) and that
    its text can include. A figure of a part it does not plan (``FIGURE_PARTS``) would show no data, and one that
    sets models against one another (``ACROSS_MODELS``) needs several; a figure the text never includes (not in
    ``FIGURE_PARTS``) is drawn all the same."""
    planned, several = planned_parts(config), len(config.models) > 1
    return tuple(
        name
        for name in study_figures(study_topics(config.parts()))
        if set(FIGURE_PARTS.get(name, ())) <= planned and (several or name not in ACROSS_MODELS)
    )


def placements(facts: StudyFacts, results: Results | None = None) -> dict[str, Place]:
    """Where each section that applies to the study goes (a section left out has no place)."""
    applied = [s for s in SECTIONS if s.applies(facts, results)]
    rendered = frozenset(s.name for s in applied)
    return {s.name: s.place_in(rendered) for s in applied}


def _order(section: Section, place: Place) -> tuple[int, int]:
    """The section's position among those of its place: its own, or just before the section it moves before."""
    index = {s.name: i for i, s in enumerate(SECTIONS)}
    if section.moves is not None and place != section.place:
        return index[section.moves.before], -len(SECTIONS) + index[section.name]
    return index[section.name], 0


def render_paper(renderer: Renderer, out_dir: Path) -> dict[Place, Path]:
    """Render every section that applies to the study into ``out_dir/text_<place>.tex``, each in its place.

    Raises:
        RenderError: the text refers to a figure, table or section that it does not include.

    Returns:
        The written file of each place.
    """
    placed = placements(renderer.facts, renderer.results)
    renderer.places = placed
    chunks: dict[Place, list[tuple[tuple[int, int], str]]] = {p: [] for p in PLACES}
    for section in SECTIONS:
        place = placed.get(section.name)
        if place is None:
            chunks[section.place].append(
                (
                    _order(section, section.place),
                    f"% section {section.name}: left out (this study did not run {section.wants()})\n",
                )
            )
            continue
        text = f"% section {section.name}\n"
        if place == "appendix":
            text += "\\FloatBarrier\n"  # each appendix keeps its figures and tables
        chunks[place].append((_order(section, place), text + renderer.render(f"{section.name}.tex.j2")))
    header = "% generated by `slmbench paper-text`; do not edit\n"
    texts = {p: header + "".join(text for _, text in sorted(parts)) for p, parts in chunks.items()}
    renderer.check_references("".join(texts.values()))
    out_dir.mkdir(parents=True, exist_ok=True)
    written: dict[Place, Path] = {}
    for place, text in texts.items():
        path = out_dir / f"text_{place}.tex"
        tmp = path.with_suffix(".tex.tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
        written[place] = path
    return written
