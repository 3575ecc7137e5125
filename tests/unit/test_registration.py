"""Registration by decorator: what the source declares is what the decorators register, read without imports."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from slmbench.analysis.topics import registry as topics
from slmbench.backends import base as backends
from slmbench.figures import registry as figures
from slmbench.registration import DeclarationError, Registry


def _package(root: Path, files: dict[str, str]) -> Registry:
    for name, text in files.items():
        path = root / "kinds" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (root / "kinds" / "__init__.py").touch()
    return Registry("kinds", root / "kinds", "kind")


def test_a_module_or_a_package_declares_one_member_named_after_it(tmp_path: Path) -> None:
    reg = _package(
        tmp_path,
        {
            "alpha.py": "@kind(reads=('x',))\ndef run(): ...\n",
            "beta/__init__.py": "",
            "beta/part.py": "@other()\ndef helper(): ...\n@kind(reads=('y', 'z'), size=2)\ndef run(): ...\n",
            "helpers.py": "def not_a_member(): ...\n",
        },
    )
    assert list(reg.declared) == ["alpha", "beta"]
    assert reg.declared["alpha"].arguments == {"reads": ("x",)}
    assert reg.declared["beta"].module == "kinds.beta.part"
    assert reg.declared["beta"].arguments == {"reads": ("y", "z"), "size": 2}
    assert [p.name for p in reg.declared["beta"].files] == ["__init__.py", "part.py"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("X = ('x',)\n@kind(reads=X)\ndef run(): ...\n", "must be literals"),
        ("@kind('x')\ndef run(): ...\n", "keyword arguments"),
        ("@kind()\ndef run(): ...\n@kind()\ndef again(): ...\n", "a second @kind"),
    ],
)
def test_a_declaration_the_source_cannot_say_is_an_error(tmp_path: Path, text: str, message: str) -> None:
    reg = _package(tmp_path, {"alpha.py": text})
    with pytest.raises(DeclarationError, match=message) as error:
        reg.declared  # noqa: B018
    assert "alpha.py:" in str(error.value)


def test_the_decorator_registers_under_the_module_name_and_get_imports_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reg = _package(
        tmp_path,
        {"alpha.py": "from kinds_registry import kind\n@kind(reads=('x',))\ndef run():\n    return 7\n"},
    )
    registry_module = type(sys)("kinds_registry")
    registry_module.kind = reg  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "kinds_registry", registry_module)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert reg.get("alpha")() == 7
    assert reg.registered() == {"alpha": {"reads": ("x",)}}
    with pytest.raises(KeyError, match="unknown kind 'gamma'"):
        reg.get("gamma")
    with pytest.raises(DeclarationError, match="not a module of kinds"):
        reg.name_of("elsewhere.alpha")


def test_a_kind_named_by_a_keyword_registers_classes_under_that_name(tmp_path: Path) -> None:
    reg = _package(
        tmp_path,
        {
            "alpha_impl.py": "@kind(name='alpha', fast=True)\nclass Alpha: ...\n",
            "beta_impl.py": "@kind(fast=False)\nclass Beta: ...\n",
        },
    )
    reg.named_by = "name"
    with pytest.raises(DeclarationError, match=r"beta_impl\.py:1: @kind needs name=<a literal name>"):
        reg.declared  # noqa: B018
    (tmp_path / "kinds" / "beta_impl.py").write_text("@kind(name='beta', fast=False)\nclass Beta: ...\n")
    reg = Registry("kinds", tmp_path / "kinds", "kind", named_by="name")
    assert {n: (d.module, d.arguments["fast"]) for n, d in reg.declared.items()} == {
        "alpha": ("kinds.alpha_impl", True),
        "beta": ("kinds.beta_impl", False),
    }


@pytest.mark.parametrize(
    "registry",
    [topics.topic, figures.figure, backends.register_backend],
    ids=["topics", "figures", "backends"],
)
def test_every_member_registers_what_its_source_declares(registry: Registry) -> None:
    for declared in registry.declared.values():
        importlib.import_module(declared.module)
    assert registry.registered() == {name: d.arguments for name, d in registry.declared.items()}


def test_a_backend_is_asked_for_its_facts_without_importing_it() -> None:
    """Config and resources read a backend's declared facts from its decorator; its settings model imports only
    its own module (the shipped study's llama.cpp backend imports no server client)."""
    code = (
        "import sys; from slmbench.backends import backend_facts, backend_names, backend_settings;"
        "facts = {n: backend_facts(n) for n in backend_names()};"
        "assert [n for n, f in facts.items() if f.in_process] == ['llamacpp', 'scripted'];"
        "assert facts['openai'].describes == 'an OpenAI-compatible server';"
        "backend_settings('llamacpp');"
        "print(sorted(m for m in sys.modules if m.startswith('slmbench.backends.') or m in ('openai', 'ollama')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == (
        "['slmbench.backends.base', 'slmbench.backends.identity', 'slmbench.backends.llamacpp_backend', "
        "'slmbench.backends.llamacpp_build', 'slmbench.backends.llamacpp_state', 'slmbench.backends.prefix_cache', "
        "'slmbench.backends.settings']"
    )


def test_the_registries_are_read_without_importing_a_topic_or_a_figure() -> None:
    code = (
        "import sys; from slmbench.analysis.topics import TOPICS; from slmbench.figures.registry import FIGURES;"
        "assert TOPICS and FIGURES;"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pandas', 'scipy', 'matplotlib')"
        " or m.startswith(('slmbench.analysis.topics.', 'slmbench.figures.'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['slmbench.analysis.topics.registry', 'slmbench.figures.registry']"
