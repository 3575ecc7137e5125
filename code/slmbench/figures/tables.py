"""Booktabs LaTeX tables built from an analysis topic JSON (its numbers, formatted as in the paper).

Each table is declared as data (``table_specs``): the topic it reads, how models are found (a key pattern) and
which keys fill its columns. Cells use each number's ``text`` so tables and prose print identical values. Rows
are the models by size, smallest first, then in a block of their own the rows without a size (scripted
controls, baselines, pooled rows); an interval the topic could not give prints as ``no interval``.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import re
from typing import Any

from slmbench.analysis.numbers import slug
from slmbench.figures.table_specs import TABLES, Column, TableSpec
from slmbench.figures.tables_grid import FIT_WIDTH_BEGIN, FIT_WIDTH_END, GridTableSpec, render_grid

__all__ = ["TABLES", "Column", "TableSpec", "UnknownTableError", "latex_escape", "render_table", "row_blocks"]

logger = logging.getLogger(__name__)

MISSING = "--"
NO_INTERVAL = "no interval"
# last key parts that are not models: rate suffixes (``X.lo``...) and pooled values (``X.mean``)
NOT_MODELS = frozenset({"lo", "hi", "k", "n", "p", "mean"})
MARK_NOTE = re.compile(r"\[\[(.*?)\]\]", re.S)
"""What a caption says of the rows' mark (``[[...]]``), printed only where a row carries it."""


class UnknownTableError(KeyError):
    """A table name that has no spec."""

    def __str__(self) -> str:
        return f"unknown table {self.args[0]!r}; known tables: {', '.join(TABLES)}"


def _models(spec: TableSpec, numbers: dict[str, dict[str, Any]]) -> list[str]:
    patterns = [re.escape(c.key).replace(r"\{m\}", "(?P<m>[a-z0-9-]+)") for c in spec.columns]
    found = {m.group("m") for key in numbers for pat in patterns if (m := re.fullmatch(pat, key))}
    return sorted(found - NOT_MODELS)


def sizes_of(topic: dict[str, Any]) -> dict[str, float]:
    """Each model's size (billions of parameters) by sanitised name, from the topic's tables that list models
    with ``params_b`` (``models`` first)."""
    tables = topic.get("tables", {})
    out: dict[str, float] = {}
    for name in sorted(tables, key=lambda t: t != "models"):
        rows = tables[name]
        for row in rows if isinstance(rows, list) else []:
            size = row.get("params_b") if isinstance(row, dict) else None
            if "model" in row and isinstance(size, int | float) and math.isfinite(size):
                out.setdefault(slug(row["model"]), float(size))
    return out


def row_blocks(models: list[str], sizes: dict[str, float]) -> tuple[list[str], list[str]]:
    """The rows with a size, smallest first (then by name), and the rows without one (controls), by name."""
    sized = sorted((m for m in models if m in sizes), key=lambda m: (sizes[m], m))
    return sized, sorted(m for m in models if m not in sizes)


def latex_escape(text: str) -> str:
    """Escape LaTeX specials in plain text (model names and the like)."""
    return re.sub(r"([&%$#_{}])", r"\\\1", text).replace("~", r"\textasciitilde{}").replace("^", r"\^{}")


def _cell(col: Column, m: str, numbers: dict[str, dict[str, Any]]) -> str:
    key = col.key.format(m=m)
    if col.interval:
        lo, hi = numbers.get(key + ".lo"), numbers.get(key + ".hi")
        if not (lo and hi):
            return MISSING
        return NO_INTERVAL if "n/a" in (lo["text"], hi["text"]) else f"[{lo['text']}, {hi['text']}]"
    num = numbers.get(key)
    if num is None or num["text"] == "n/a":
        return MISSING
    detail = numbers.get(col.detail.format(m=m)) if col.detail else None
    return f"{num['text']} ({detail['text']})" if detail else str(num["text"])


def _missing_note(spec: TableSpec, models: list[str], numbers: dict[str, dict[str, Any]]) -> str:
    """What a ``--`` cell means, when the table has one."""
    cells = [(c, _cell(c, m, numbers)) for m in models for c in spec.columns]
    if not any(text == MISSING for _, text in cells):
        return ""
    p_missing = any(text == MISSING and "$p$" in c.header for c, text in cells)
    return (
        " "
        + MISSING
        + ": no value"
        + (" (an exact McNemar $p$ has none without a discordant pair)" if p_missing else "")
        + "."
    )


def _marked(spec: TableSpec, m: str, numbers: dict[str, dict[str, Any]]) -> bool:
    """Whether row ``m`` carries the table's mark (its flag key says yes)."""
    return (
        bool(spec.base_key)
        and str(numbers.get(str(spec.base_key).format(m=m), {}).get("text", "")).strip() == "yes"
    )


def caption(spec: TableSpec, models: list[str], numbers: dict[str, dict[str, Any]]) -> str:
    """The spec's caption, with what it says of the mark only where a row carries it."""
    marked = any(_marked(spec, m, numbers) for m in models)
    return MARK_NOTE.sub(lambda match: match.group(1) if marked else "", spec.caption)


def with_columns_of(spec: TableSpec, models: list[str], numbers: dict[str, dict[str, Any]]) -> TableSpec:
    """``spec`` without the columns that say something (``Column.says``) and have no value in any row, its caption
    followed by what its remaining columns say (each once)."""
    kept = tuple(
        c for c in spec.columns if not c.says or any(_cell(c, m, numbers) != MISSING for m in models)
    )
    said = list(dict.fromkeys(c.says for c in kept if c.says))
    return dataclasses.replace(spec, columns=kept or spec.columns, caption=" ".join([spec.caption, *said]))


def _row(spec: TableSpec, m: str, numbers: dict[str, dict[str, Any]], topic: dict[str, Any]) -> str:
    label = latex_escape(topic.get("labels", {}).get(m, m))
    if "p{" in spec.label_align:  # a wrapping label column: a trial id breaks at its slashes
        label = label.replace("/", "/\\allowbreak{}")
    if _marked(spec, m, numbers):
        label += f"\\textsuperscript{{{spec.mark}}}"
    return " & ".join([label, *(_cell(c, m, numbers) for c in spec.columns)]) + " \\\\"


def render_table(name: str, topic: dict[str, Any]) -> str:
    """Booktabs LaTeX for table ``name`` from a topic JSON ({"topic", "numbers", "tables"})."""
    if name not in TABLES:
        raise UnknownTableError(name)
    spec = TABLES[name]
    if topic.get("topic") not in (None, spec.topic):
        raise ValueError(f"table {name!r} reads topic {spec.topic!r}, got topic {topic.get('topic')!r}")
    if isinstance(spec, GridTableSpec):
        return render_grid(name, spec, topic)
    numbers = {str(n["key"]): n for n in topic.get("numbers", [])}
    models = _models(spec, numbers)
    spec = with_columns_of(spec, models, numbers)
    lines = [
        "% generated by `slmbench table " + name + "`; do not edit",
        "\\begin{table}[tbp]",
        "\\centering\\footnotesize",
        "\\setlength{\\tabcolsep}{4pt}",
        f"\\caption{{{caption(spec, models, numbers)}{_missing_note(spec, models, numbers)}}}",
        f"\\label{{tab:{name}}}",
        FIT_WIDTH_BEGIN,
        "\\begin{tabular}{" + spec.label_align + "".join(c.align for c in spec.columns) + "}",
        "\\toprule",
        " & ".join([spec.row_header, *(c.header for c in spec.columns)]) + " \\\\",
        "\\midrule",
    ]
    if not models:
        lines.append(f"\\multicolumn{{{len(spec.columns) + 1}}}{{c}}{{no data}} \\\\")
        logger.warning("table %s: no models in topic %s", name, spec.topic)
    sized, others = row_blocks(models, sizes_of(topic))
    lines += [_row(spec, m, numbers, topic) for m in sized]
    lines += ["\\midrule"] if sized and others else []  # the controls' block
    lines += [_row(spec, m, numbers, topic) for m in others]
    lines += ["\\bottomrule", "\\end{tabular}", FIT_WIDTH_END, "\\end{table}", ""]
    return "\n".join(lines)
