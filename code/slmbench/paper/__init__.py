"""The paper's text, rendered from the study that was run: its facts (configuration, plan and records), its result
keys and templates whose every number, figure and section is checked against both."""

from slmbench.paper.facts import PARTS, Part, StudyFacts, study_facts
from slmbench.paper.model_facts import ModelFacts
from slmbench.paper.render import Renderer, RenderError, names, tex, words
from slmbench.paper.results import Results, UndefinedResultError
from slmbench.paper.sections import FIGURE_PARTS, PLACES, SECTIONS, Section, render_paper

__all__ = [
    "FIGURE_PARTS", "PARTS", "PLACES", "SECTIONS", "ModelFacts", "Part", "RenderError", "Renderer", "Results",
    "Section", "StudyFacts", "UndefinedResultError", "names", "render_paper", "study_facts", "tex", "words",
]  # fmt: skip
