"""The package's own source: its files, and the modules each module imports, read from the syntax tree.

Nothing is imported: the workflow reads this at every start to derive each rule's code inputs (the modules a
command runs, followed through every import, those inside functions included), and the layering test reads the
same import graph.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterable
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
ROOT = "slmbench"
HASHED_SUFFIXES = frozenset({".py", ".yaml", ".json"})
"""The files ``source_files`` gives: modules, task and corpus files, schemas."""


def _skipped(path: Path) -> bool:
    return "__pycache__" in path.parts or not path.is_file()


def source_files() -> tuple[Path, ...]:
    """Every module and data file of the package (``HASHED_SUFFIXES``), sorted."""
    return tuple(p for p in sorted(PACKAGE.rglob("*")) if p.suffix in HASHED_SUFFIXES and not _skipped(p))


def module_name(path: Path) -> str:
    """``.../slmbench/run/key.py`` -> ``slmbench.run.key``; a package's ``__init__.py`` -> the package."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.cache
def modules() -> dict[str, Path]:
    """Every module of the package by dotted name."""
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py")) if not _skipped(p)}


@functools.cache
def imports(module: str) -> frozenset[str]:
    """The package modules ``module`` imports anywhere in its source (``from pkg import mod`` names ``mod``)."""
    known = modules()
    path = known[module]
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.split(".")[0] == ROOT}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            if base.split(".")[0] != ROOT:
                continue
            for alias in node.names:
                out.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base)
    return frozenset(out - {module})


def _with_packages(module: str) -> list[str]:
    """``module`` and the packages importing it runs first (``slmbench``, ``slmbench.run``, ...)."""
    parts = module.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts) + 1)]


def closure(roots: Iterable[str]) -> frozenset[str]:
    """The modules running ``roots`` imports: the roots, what they import, transitively, and their packages.

    Raises:
        KeyError: A root that is not a module of the package.
    """
    known = modules()
    todo = [m for root in roots for m in _with_packages(root)]
    missing = [m for m in todo if m not in known]
    if missing:
        raise KeyError(f"not modules of {ROOT}: {', '.join(missing)}")
    seen: set[str] = set()
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        todo += [m for target in imports(module) for m in _with_packages(target) if m in known]
    return frozenset(seen)


@functools.cache
def package_data(package: str) -> tuple[Path, ...]:
    """The data files of a package: every file in its folder, or in a folder below it that is not a package,
    that is not a module (task files, the search corpus, the site's assets)."""
    folder = modules()[package].parent
    found: list[Path] = []
    for path in sorted(folder.rglob("*")):
        if _skipped(path) or path.suffix in (".py", ".pyc"):
            continue
        below = path.parent.relative_to(folder).parts
        if not any((folder.joinpath(*below[: i + 1]) / "__init__.py").exists() for i in range(len(below))):
            found.append(path)
    return tuple(found)


def code_files(roots: Iterable[str]) -> tuple[Path, ...]:
    """The files running ``roots`` reads as code: the modules of their ``closure`` and the data of each package
    among them, sorted."""
    known = modules()
    mods = closure(roots)
    files = {known[m] for m in mods}
    files |= {p for m in mods if known[m].name == "__init__.py" for p in package_data(m)}
    return tuple(sorted(files))
