"""The package's import graph, read from the syntax tree: every import counts, and a module's closure is what
running it loads (checked against a real interpreter in tests/unit/rules/test_code_inputs.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from slmbench import sources

FILES = {
    "__init__.py": "",
    "a/__init__.py": "",
    "a/x.py": "import json\n\n\ndef f():\n    from slmbench.b import y\n    return y\n",
    "b/__init__.py": "from slmbench.b.z import Z\n",
    "b/y.py": "from .z import Z\nfrom . import w\n",
    "b/z.py": "Z = 1\n",
    "b/w.py": "import slmbench.c.v as v\n",
    "b/data/t.yaml": "t: 1\n",
    "b/sub/__init__.py": "",
    "b/sub/d.yaml": "d: 1\n",
    "c/__init__.py": "",
    "c/v.py": "",
    "c/notes.txt": "not hashed\n",
}


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A small package named slmbench in ``tmp_path`` in place of the real one."""
    root = tmp_path / "slmbench"
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    monkeypatch.setattr(sources, "PACKAGE", root)
    sources.modules.cache_clear()
    sources.imports.cache_clear()
    yield root
    sources.modules.cache_clear()
    sources.imports.cache_clear()


def test_imports_inside_functions_relative_and_aliased_count(package: Path) -> None:
    assert sources.imports("slmbench.a.x") == {"slmbench.b.y"}
    assert sources.imports("slmbench.b.y") == {"slmbench.b.z", "slmbench.b.w"}
    assert sources.imports("slmbench.b.w") == {"slmbench.c.v"}
    assert sources.imports("slmbench.b") == {"slmbench.b.z"}


def test_the_closure_holds_what_the_modules_import_and_their_packages(package: Path) -> None:
    assert sources.closure(["slmbench.a.x"]) == {
        "slmbench",
        "slmbench.a",
        "slmbench.a.x",
        "slmbench.b",
        "slmbench.b.y",
        "slmbench.b.z",
        "slmbench.b.w",
        "slmbench.c",
        "slmbench.c.v",
    }
    assert sources.closure(["slmbench.b.z"]) == {"slmbench", "slmbench.b", "slmbench.b.z"}
    with pytest.raises(KeyError, match="slmbench.nope"):
        sources.closure(["slmbench.nope"])


def test_a_packages_data_is_its_own_not_its_subpackages(package: Path) -> None:
    assert sources.package_data("slmbench.b") == (package / "b/data/t.yaml",)
    assert sources.package_data("slmbench.b.sub") == (package / "b/sub/d.yaml",)
    files = sources.code_files(["slmbench.b.y"])
    assert package / "b/data/t.yaml" in files and package / "b/sub/d.yaml" not in files
    assert package / "c/notes.txt" in files  # data of a package the code imports


def test_source_files_are_the_hashed_suffixes(package: Path) -> None:
    names = {str(p.relative_to(package)) for p in sources.source_files()}
    assert names == {n for n in FILES if not n.endswith(".txt")}


def test_module_names() -> None:
    assert sources.module_name(sources.PACKAGE / "run" / "key.py") == "slmbench.run.key"
    assert sources.module_name(sources.PACKAGE / "run" / "__init__.py") == "slmbench.run"
    assert "slmbench.sources" in sources.modules()
