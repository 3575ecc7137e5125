"""Imports go one way: each module imports only from its own layer or the layers below it.

Bottom to top: the vocabulary (and how registries are declared); the seams (backends, tools) and the config; the record format; judging; the tasks
(written in judging's criteria); models; the harness; running trials into records; the data stages (tidy,
importers, eligibility); the analysis; figures; the site; the command line. A layer is a list of top-level
folders and modules of the package, and nothing is exempt: a package's command-line module sits in its layer like
any other module. Figures read the analysis only through what its topics write. Every import counts, those inside
functions included.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import slmbench

PACKAGE = Path(slmbench.__file__).resolve().parent
LAYERS: tuple[tuple[str, ...], ...] = (
    ("slmbench", "slmbench.vocab", "slmbench.conditions", "slmbench.registration"),
    ("slmbench.backends", "slmbench.tools", "slmbench.config"),
    ("slmbench.records",),
    ("slmbench.judging",),
    ("slmbench.tasks",),
    ("slmbench.models",),
    ("slmbench.harness",),
    ("slmbench.run",),
    ("slmbench.tidy", "slmbench.importers", "slmbench.eligibility"),
    ("slmbench.analysis",),
    ("slmbench.figures",),
    ("slmbench.site", "slmbench.paper"),
    ("slmbench.cli", "slmbench.__main__"),
)
"""The top-level folders and modules of each layer, bottom first."""
FIGURES_MAY_IMPORT = (
    "slmbench.vocab",
    "slmbench.registration",
    "slmbench.figures",
    "slmbench.analysis.topics",
    "slmbench.analysis.numbers",
    "slmbench.records.schema",
    "slmbench.records.ledger",
    "slmbench.records.atomic",
)
"""Figures read the files the topics wrote (the topics' names and the format of their files) and, to print
transcripts, the raw records; they never read the statistics, the harness or the tasks."""


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def layer(module: str) -> int:
    """The index of the layer of ``module``'s top-level folder or module (the root package is its own)."""
    top = ".".join(module.split(".")[:2])
    found = [index for index, names in enumerate(LAYERS) if top in names]
    if not found:
        raise AssertionError(f"{top} is in no layer: add it to LAYERS")
    return found[0]


def imports(module: str) -> set[str]:
    """The package modules ``module`` imports (``from pkg import mod`` names the module)."""
    package = module if MODULES[module].name == "__init__.py" else module.rsplit(".", 1)[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(MODULES[module].read_text())):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.split(".")[0] == "slmbench"}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            if base.split(".")[0] != "slmbench":
                continue
            for alias in node.names:
                out.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base)
    return out - {module}


EDGES = [(source, target) for source in MODULES for target in sorted(imports(source))]


def test_every_module_has_a_layer_and_the_layers_are_the_folders() -> None:
    for module in MODULES:
        layer(module)
    tops = {".".join(m.split(".")[:2]) for m in MODULES}
    named = [name for names in LAYERS for name in names]
    assert sorted(named) == sorted(tops), "LAYERS must name each top-level folder and module exactly once"


def test_imports_go_down() -> None:
    upward = [
        f"{source} (layer {layer(source)}) imports {target} (layer {layer(target)})"
        for source, target in EDGES
        if layer(target) > layer(source)
    ]
    assert upward == [], "imports against the layering:\n" + "\n".join(upward)


def test_figures_read_the_analysis_through_its_topics() -> None:
    outside = [
        f"{source} imports {target}"
        for source, target in EDGES
        if source.startswith("slmbench.figures.") and not target.startswith(FIGURES_MAY_IMPORT)
    ]
    assert outside == [], "figure modules reaching past the topics:\n" + "\n".join(outside)


@pytest.mark.parametrize(
    ("lower", "upper"),
    [
        ("slmbench.vocab", "slmbench.tasks"),
        ("slmbench.records", "slmbench.judging"),
        ("slmbench.judging", "slmbench.tasks"),
        ("slmbench.tasks", "slmbench.harness"),
        ("slmbench.models", "slmbench.harness"),
        ("slmbench.config", "slmbench.harness"),
        ("slmbench.judging", "slmbench.run"),
        ("slmbench.harness", "slmbench.run"),
        ("slmbench.harness", "slmbench.analysis"),
    ],
)
def test_named_directions(lower: str, upper: str) -> None:
    """The directions the layering exists for: the lower package never imports the upper one, not even from its
    command line."""
    assert layer(lower) < layer(upper)
    back = [(s, t) for s, t in EDGES if s.startswith(lower) and t.startswith(upper)]
    assert back == []
