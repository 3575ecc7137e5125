"""Rendering the paper's text: Jinja2 templates with LaTeX-safe delimiters and strict undefined names, whose
results, figures and tables go through helpers that refuse what the study does not hold.

Delimiters: a line ``%% if ...`` (a statement on a line of its own, which leaves no line behind), ``((* if ... *))``
inside a line, ``((( expression )))`` values, ``((= comment =))`` and ``%# comment`` lines.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2
import jinja2.ext

from slmbench.paper.facts import PART_TEXT, Part, StudyFacts
from slmbench.paper.results import Results

_WORDS = (
    "no",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
)
_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "_": r"\_", "%": r"\%", "&": r"\&", "#": r"\#", "$": r"\$",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}  # fmt: skip


_RES = re.compile(r"\\res\{((?:[a-z0-9.\-]|\(\(\(.*?\)\)\))+)\}")
_EXPRESSION = re.compile(r"\(\(\((.*?)\)\)\)")
_PAREN_BEFORE_TAG = re.compile(r"\((?=\(\([(*=])")


def _res_call(match: re.Match[str]) -> str:
    """``\\res{cap.acc.((( m.slug )))}`` as ``((( res("cap.acc." ~ (m.slug)) )))``."""
    pieces = _EXPRESSION.split(match.group(1))
    parts = [repr(p) if i % 2 == 0 else f"({p.strip()})" for i, p in enumerate(pieces) if p]
    return f"((( res({' ~ '.join(parts)}) )))"


class TemplateText(jinja2.ext.Extension):
    """How a template's text is read: every ``\\res{key}`` is a call of ``res`` (so a missing or undefined key
    fails the render), and blank lines (LaTeX's paragraph breaks), which a line statement before them would eat,
    are kept."""

    def preprocess(self, source: str, name: str | None, filename: str | None = None) -> str:
        source = _RES.sub(_res_call, source)
        source = _PAREN_BEFORE_TAG.sub("((( '(' )))", source)  # a literal "(" would join the tag's "((("
        return re.sub(r"(?m)^[ \t]*$", '((( "" )))', source)


class RenderError(ValueError):
    """A template asked for a figure, table or part that this study does not have."""


def tex(text: object) -> str:
    """``text`` with LaTeX's special characters escaped (model names, CPU names)."""
    return "".join(_LATEX_SPECIAL.get(c, c) for c in str(text))


def words(n: int) -> str:
    """A small count as a word (``3`` -> ``three``), else its digits."""
    return _WORDS[n] if 0 <= n < len(_WORDS) else str(n)


def names(items: Iterable[object], conjunction: str = "and") -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    parts = [str(i) for i in items]
    if len(parts) <= 1:
        return "".join(parts)
    return f"{', '.join(parts[:-1])} {conjunction} {parts[-1]}"


@dataclass
class Renderer:
    """Renders templates for one study: its facts, its results and the figures and tables it may include."""

    facts: StudyFacts
    results: Results
    templates: Path
    figure_parts: Mapping[str, tuple[Part, ...]]
    """Every figure the text may include and the parts that must have run for it to have data."""
    figures: frozenset[str]
    """The registered figures (``slmbench.figures`` registry)."""
    tables: frozenset[str]
    """The tables the pipeline writes (``paper/generated/tab_<name>.tex``)."""
    across_models: frozenset[str] = frozenset()
    """The figures that place models against one another, left out of a study of one model."""
    included: list[str] = field(default_factory=list)
    included_tables: list[str] = field(default_factory=list)
    places: Mapping[str, str] = field(default_factory=dict)
    """Where each section rendered for the study goes (``"body"``, ``"appendix"``; set by ``render_paper``)."""

    def environment(self) -> jinja2.Environment:
        env = jinja2.Environment(
            loader=jinja2.FileSystemLoader(self.templates),
            undefined=jinja2.StrictUndefined,
            block_start_string="((*",
            block_end_string="*))",
            variable_start_string="(((",
            variable_end_string=")))",
            comment_start_string="((=",
            comment_end_string="=))",
            line_statement_prefix="%%",
            line_comment_prefix="%#",
            trim_blocks=False,
            lstrip_blocks=True,
            keep_trailing_newline=True,
            autoescape=False,
            extensions=[TemplateText],
        )
        env.globals.update(self.helpers())
        env.filters.update(
            {
                "tex": tex,
                "words": words,
                "names": names,
                "part_text": lambda p: PART_TEXT[p],
                "at_least": self.at_least,
                "above": self.above,
                "with_key": self.with_key,
            }
        )
        return env

    def helpers(self) -> dict[str, Callable[..., Any] | object]:
        r = self.results
        return {
            "facts": self.facts,
            "res": r.res,
            "defined": r.defined,
            "value": r.value,
            "num": r.number,
            "figure": self.figure,
            "has_figure": self.has_figure,
            "table": self.table,
            "part_text": lambda p: PART_TEXT[p],
            "fail": self._fail,
            "matching": self.matching,
            "place_of": self.places.get,
            "see": self.see,
        }

    def see(self, section: str) -> str:
        """A reference to section ``section`` (label ``sec:<name>``) as its place names it: ``Section~N`` in the
        main text, ``Appendix~X`` in the appendix.

        Raises:
            RenderError: the section is not rendered for this study.
        """
        place = self.places.get(section)
        if place not in ("body", "appendix"):
            raise RenderError(f"the text refers to section {section!r}, which this study leaves out")
        return f"{'Appendix' if place == 'appendix' else 'Section'}~\\ref{{sec:{section}}}"

    def matching(self, pattern: str) -> list[str]:
        """The first group of every defined key that matches ``pattern`` whole, in key order (each once)."""
        regex = re.compile(pattern)
        found = (regex.fullmatch(k) for k in sorted(self.results.values) if self.results.defined(k))
        return list(dict.fromkeys(m.group(1) for m in found if m))

    def with_key(self, models: Iterable[Any], prefix: str) -> list[Any]:
        """The models whose key ``<prefix>.<slug>`` is defined."""
        return [m for m in models if self.results.defined(f"{prefix}.{m.slug}")]

    def at_least(self, models: Iterable[Any], prefix: str, threshold: float) -> list[Any]:
        """The models whose key ``<prefix>.<slug>`` is defined and at least ``threshold`` (percentages as printed)."""
        return [
            m for m in self.with_key(models, prefix) if self.results.number(f"{prefix}.{m.slug}") >= threshold
        ]

    def above(self, models: Iterable[Any], prefix: str, threshold: float = 0) -> list[Any]:
        """The models whose key ``<prefix>.<slug>`` is defined and above ``threshold`` (percentages as printed)."""
        return [
            m for m in self.with_key(models, prefix) if self.results.number(f"{prefix}.{m.slug}") > threshold
        ]

    @staticmethod
    def _fail(message: str) -> str:
        raise RenderError(message)

    def has_figure(self, name: str) -> bool:
        """Whether figure ``name`` is registered, declared for the text and its parts ran."""
        parts = self.figure_parts.get(name)
        across = name in self.across_models and not self.facts.several
        return name in self.figures and parts is not None and self.facts.has(*parts) and not across

    def figure(self, name: str, caption: str, *, wide: bool = False) -> str:
        """A figure environment for ``figures/fig_<name>.pdf`` (label ``fig:<name>``).

        Raises:
            RenderError: the figure is not registered, not declared, or a part it needs did not run.
        """
        if name not in self.figures:
            raise RenderError(f"figure {name!r} is not registered (slmbench.figures)")
        if name not in self.figure_parts:
            raise RenderError(f"figure {name!r} is not declared in slmbench.paper.sections.FIGURE_PARTS")
        missing = [p for p in self.figure_parts[name] if not self.facts.has(p)]
        if missing:
            raise RenderError(f"figure {name!r} needs {', '.join(missing)}, which this study did not run")
        if name in self.across_models and not self.facts.several:
            raise RenderError(f"figure {name!r} places models against one another; this study has one model")
        self.included.append(name)
        placement = "figure*" if wide else "figure"
        return (
            f"\\begin{{{placement}}}[tbp]\n  \\centering\n"
            f"  \\includegraphics[width=\\figw]{{../figures/fig_{name}.pdf}}\n"
            f"  \\caption{{{caption.strip()}}}\n  \\label{{fig:{name}}}\n\\end{{{placement}}}\n"
        )

    def table(self, name: str) -> str:
        """``\\input`` of the generated table ``name``.

        Raises:
            RenderError: the pipeline writes no such table.
        """
        if name not in self.tables:
            raise RenderError(f"table {name!r} is not written by the pipeline")
        self.included_tables.append(name)
        return f"\\input{{generated/tab_{name}}}\n"

    def check_references(self, text: str) -> None:
        """Fail if ``text`` refers to a label it does not define (a figure or table left out, a section not
        rendered); a generated table ``<name>`` defines ``tab:<name>``.

        Raises:
            RenderError: a reference to an undefined label.
        """
        labels = set(re.findall(r"\\label\{([^}]+)\}", text)) | {f"tab:{t}" for t in self.included_tables}
        refs = set(re.findall(r"\\ref\{([^}]+)\}", text))
        missing = sorted(refs - labels)
        if missing:
            raise RenderError(f"the text refers to {', '.join(missing)}, which it does not include")

    def render(self, template: str) -> str:
        """The text of ``template`` (a file name under ``templates``)."""
        return self.environment().get_template(template).render()
