"""Imports go one way: each module imports only from its own layer or the layers below it.

Bottom to top: the vocabulary (and how registries are declared); the seams (backends, tools), which declare what
the config derives from (a backend's settings model and facts); the config; the record format; judging; the tasks
(written in judging's criteria); models; the harness; running trials into records; the data stages (tidy,
importers, eligibility); the analysis; the field's formats (exports report the analysis's intervals); figures; the
site; the command line. A layer is a list of top-level
folders and modules of the package, and nothing is exempt: a package's command-line module sits in its layer like
any other module. Figures read the analysis only through what its topics write. Every import counts, those inside
functions included, and modules named in strings to be imported by name.
"""

from __future__ import annotations

import ast

import pytest

from slmbench.sources import imports, modules

LAYERS: tuple[tuple[str, ...], ...] = (
    (
        "slmbench",
        "slmbench.vocab",
        "slmbench.conditions",
        "slmbench.registration",
        "slmbench.sources",
        "slmbench.yamltext",
    ),
    ("slmbench.backends", "slmbench.tools"),
    ("slmbench.config", "slmbench.study"),
    ("slmbench.records",),
    ("slmbench.judging",),
    ("slmbench.tasks",),
    ("slmbench.models",),
    ("slmbench.harness",),
    ("slmbench.run",),
    ("slmbench.tidy", "slmbench.importers", "slmbench.eligibility"),
    ("slmbench.analysis",),
    ("slmbench.formats",),
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


MODULES = modules()


def layer(module: str) -> int:
    """The index of the layer of ``module``'s top-level folder or module (the root package is its own)."""
    top = ".".join(module.split(".")[:2])
    found = [index for index, names in enumerate(LAYERS) if top in names]
    if not found:
        raise AssertionError(f"{top} is in no layer: add it to LAYERS")
    return found[0]


def named_modules(module: str) -> set[str]:
    """The package modules ``module`` names in a string (``"slmbench.run.cli:run"``), to import them by name."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    texts = {
        n.value.split(":")[0]
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, str)
    }
    return {text for text in texts if "." in text and text in MODULES} - {module}


EDGES = [(source, target) for source in MODULES for target in sorted(imports(source) | named_modules(source))]
"""Every import of the package: ``slmbench.sources.imports`` reads each module's syntax tree, so an import inside a
function counts as one at the top, and so does a module named in a string to be imported by name."""


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
        ("slmbench.backends", "slmbench.config"),
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


def test_no_two_folders_import_each_other() -> None:
    """Within a layer too the arrows go one way: no cycle between two top-level folders or modules, not even
    through an import inside a function."""
    top = {(".".join(s.split(".")[:2]), ".".join(t.split(".")[:2])) for s, t in EDGES}
    cycles = sorted(f"{a} <-> {b}" for a, b in top if a < b and (b, a) in top)
    assert cycles == []
