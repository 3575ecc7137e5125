"""The paper's sections, each declared with the parts of the study it speaks of, and the figures the text may
include with the parts they draw. A section whose parts did not run is left out (a comment says so); a figure
whose parts did not run cannot be included (the render fails)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from slmbench.paper.facts import COMPARISON_PARTS, PARTS, Part, StudyFacts
from slmbench.paper.render import Renderer
from slmbench.paper.results import Results
from slmbench.vocab import SUITES

Place = Literal["abstract", "body", "appendix"]
PLACES: tuple[Place, ...] = ("abstract", "body", "appendix")
"""The generated files main.tex inputs: ``paper/generated/text_<place>.tex``."""
SUITE_PARTS: tuple[Part, ...] = tuple(part for part in PARTS if part in SUITES)
"""The suites the text speaks of (each a part of the study); a suite with no part is not in the paper."""


@dataclass(frozen=True)
class Section:
    """A section: its template (``<name>.tex.j2``), where it goes, the parts it needs (any of ``any_of``) and the
    counts it reports that must not be zero (``counts``: result keys; a section of nothing is left out)."""

    name: str
    place: Place
    needs: tuple[Part, ...] = ()
    any_of: tuple[Part, ...] = ()
    counts: tuple[str, ...] = ()

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


def _positive(results: Results, key: str) -> bool:
    return results.defined(key) and results.number(key) > 0


SECTIONS: tuple[Section, ...] = (
    Section("title", "abstract", any_of=SUITE_PARTS),
    Section("abstract", "abstract", any_of=SUITE_PARTS),
    Section("introduction", "body", any_of=SUITE_PARTS),
    Section("design", "body", any_of=SUITE_PARTS),
    Section("protocol", "body", needs=("protocol", "legacy")),
    Section("comparisons", "body", any_of=(*COMPARISON_PARTS, "twins")),
    Section("capability", "body", needs=("capability",)),
    Section("reliability", "body", needs=("reliability",)),
    Section("task_reliability", "body", any_of=("sampling", "paraphrases", "faults", "safety_suite")),
    Section("task_consistency", "body", needs=("sampling",)),  # a subsection of task_reliability
    Section("task_robustness", "body", any_of=("paraphrases", "faults", "safety_suite")),  # a subsection too
    Section("boundary", "body", any_of=SUITE_PARTS, counts=("boundary.n.calls",)),
    Section("eligibility", "body", needs=("eligibility",)),
    Section("limits", "body", any_of=SUITE_PARTS),
    Section("conclusion", "body", any_of=SUITE_PARTS),
    Section("appendix_harness", "appendix", any_of=SUITE_PARTS),
    Section("appendix_protocol", "appendix", needs=("protocol",)),
    Section("appendix_comparisons", "appendix", any_of=COMPARISON_PARTS),
    Section("appendix_reliability", "appendix", any_of=SUITE_PARTS),
    Section("appendix_eligibility", "appendix", needs=("eligibility",)),
    Section("appendix_reproduction", "appendix", needs=("external",)),
    Section("appendix_transcripts", "appendix", needs=("capability",)),
)
"""Every section, in the order of the paper."""

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


def render_paper(renderer: Renderer, out_dir: Path) -> dict[Place, Path]:
    """Render every section that applies to the study into ``out_dir/text_<place>.tex``.

    Raises:
        RenderError: the text refers to a figure, table or section that it does not include.

    Returns:
        The written file of each place.
    """
    chunks: dict[Place, list[str]] = {
        p: ["% generated by `slmbench paper-text`; do not edit\n"] for p in PLACES
    }
    for section in SECTIONS:
        if section.applies(renderer.facts, renderer.results):
            chunks[section.place].append(f"% section {section.name}\n")
            if section.place == "appendix":
                chunks[section.place].append("\\FloatBarrier\n")  # each appendix keeps its figures and tables
            chunks[section.place].append(renderer.render(f"{section.name}.tex.j2"))
        else:
            chunks[section.place].append(
                f"% section {section.name}: left out (this study did not run {section.wants()})\n"
            )
    renderer.check_references("".join("".join(parts) for parts in chunks.values()))
    out_dir.mkdir(parents=True, exist_ok=True)
    written: dict[Place, Path] = {}
    for place, parts in chunks.items():
        path = out_dir / f"text_{place}.tex"
        tmp = path.with_suffix(".tex.tmp")
        tmp.write_text("".join(parts), encoding="utf-8")
        tmp.replace(path)
        written[place] = path
    return written
