"""Registration by decorator, readable without importing what is registered.

A kind of thing the workflow builds one rule for (an analysis topic, a figure) registers each of its members
with a decorator on the function that defines it, written with literal keyword arguments only::

    @figure(reads=("capability", "external"))
    def draw(src: Source) -> Figure: ...

The member's name is its module's (or package's) name below the kind's package, so one name runs from the
rule to the module; a kind whose members are named otherwise (a backend's ``name="openai"``) says which keyword
names them (``named_by``), and a member may then be a class. Importing the module runs the decorator
(``Registry.__call__``); but the registry is read at every Snakemake start and the members import pandas, scipy,
matplotlib or a model server's client, so ``Registry.declared`` reads the same decorator calls from the source
instead (the abstract syntax tree: no member is imported). A test checks that what the decorators register
equals what is read.
"""

from __future__ import annotations

import ast
import functools
import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


class DeclarationError(ValueError):
    """A declaration the registry cannot read from the source (``file:line`` and why)."""


@dataclass(frozen=True)
class Declaration:
    """One registered member as its source declares it."""

    name: str
    """The module's name below the kind's package (a package's name for a member made of several modules), or the
    value of the keyword that names the kind's members."""
    module: str
    """The dotted name of the module whose function carries the decorator."""
    arguments: dict[str, Any]
    """The decorator's keyword arguments (literals)."""
    files: tuple[Path, ...]
    """The member's source files: its module, or every module of its package."""


class Registry(Generic[F]):
    """The members of one kind: the decorator that registers them and what their source declares.

    Args:
        package: The dotted name of the package the members live in (``slmbench.figures``).
        folder: That package's folder.
        decorator: The name the members' modules call the decorator by (``figure``).
        named_by: The decorator's keyword whose value names a member (None: the member's module names it).
    """

    def __init__(self, package: str, folder: Path, decorator: str, named_by: str | None = None) -> None:
        self.package = package
        self.folder = folder
        self.decorator = decorator
        self.named_by = named_by
        self._registered: dict[str, tuple[F, dict[str, Any]]] = {}

    def __call__(self, **arguments: Any) -> Callable[[F], F]:
        """The decorator: registers the function (or class) it decorates under its name."""

        def register(fn: F) -> F:
            name = arguments[self.named_by] if self.named_by else self.name_of(fn.__module__)
            self._registered[name] = (fn, arguments)
            return fn

        return register

    def name_of(self, module: str) -> str:
        """The member name of a module of the package: the first part of its name below the package.

        Raises:
            DeclarationError: ``module`` is not below the package.
        """
        if not module.startswith(self.package + "."):
            raise DeclarationError(f"{module} is not a module of {self.package}")
        return module[len(self.package) + 1 :].split(".")[0]

    @functools.cached_property
    def declared(self) -> dict[str, Declaration]:
        """Every member the package's source declares, by name (sorted)."""
        found: dict[str, Declaration] = {}
        for entry in sorted(self.folder.iterdir()):
            if entry.is_dir() and (entry / "__init__.py").is_file():
                files = tuple(sorted(p for p in entry.rglob("*.py") if "__pycache__" not in p.parts))
            elif entry.suffix == ".py" and entry.name != "__init__.py":
                files = (entry,)
            else:
                continue
            for path in files:
                for line, arguments in self._decorations(path):
                    name = entry.stem if entry.is_file() else entry.name
                    if self.named_by is not None:
                        if not isinstance(arguments.get(self.named_by), str):
                            raise DeclarationError(
                                f"{path}:{line}: @{self.decorator} needs {self.named_by}=<a literal name>"
                            )
                        name = arguments[self.named_by]
                    if name in found:
                        raise DeclarationError(f"{path}:{line}: a second @{self.decorator} of {name!r}")
                    found[name] = Declaration(name, self._module(path), arguments, files)
        return found

    def _module(self, path: Path) -> str:
        parts = path.relative_to(self.folder).with_suffix("").parts
        return ".".join((self.package, *(parts[:-1] if parts[-1] == "__init__" else parts)))

    def _decorations(self, path: Path) -> list[tuple[int, dict[str, Any]]]:
        """(line, keyword arguments) of each function (or class, for a kind named by a keyword) of ``path``
        decorated with this registry's decorator."""
        kinds: tuple[type[ast.AST], ...] = (
            (ast.FunctionDef, ast.ClassDef) if self.named_by else (ast.FunctionDef,)
        )
        out = []
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if not isinstance(node, kinds):
                continue
            assert isinstance(node, ast.FunctionDef | ast.ClassDef)
            for call in node.decorator_list:
                if not isinstance(call, ast.Call) or _called(call) != self.decorator:
                    continue
                if call.args:
                    raise DeclarationError(f"{path}:{call.lineno}: @{self.decorator} takes keyword arguments")
                try:
                    arguments = {str(k.arg): ast.literal_eval(k.value) for k in call.keywords}
                except ValueError:
                    raise DeclarationError(
                        f"{path}:{call.lineno}: @{self.decorator}'s arguments must be literals"
                    ) from None
                out.append((call.lineno, arguments))
        return out

    def get(self, name: str) -> F:
        """The registered function of member ``name`` (its module imported).

        Raises:
            KeyError: No member of that name.
        """
        if name not in self._registered:
            if name not in self.declared:
                raise KeyError(f"unknown {self.decorator} {name!r}; known: {', '.join(self.declared)}")
            importlib.import_module(self.declared[name].module)
        return self._registered[name][0]

    def registered(self) -> dict[str, dict[str, Any]]:
        """The decorator arguments of every member registered so far (by importing it), by name."""
        return {name: arguments for name, (_, arguments) in sorted(self._registered.items())}


def _called(call: ast.Call) -> str | None:
    """The name a decorator call calls: ``topic`` of ``@topic(...)`` and of ``@registry.topic(...)``."""
    if isinstance(call.func, ast.Name):
        return call.func.id
    if isinstance(call.func, ast.Attribute):
        return call.func.attr
    return None
