"""Every rule's code inputs are the code its commands run: no module a rule's ``slmbench`` command imports is
missing from the rule's inputs, so editing it reruns the rule.

The workflow is loaded through Snakemake's API and each rule's inputs are expanded for every value of its
wildcards (a topic, a figure, a table). What a command imports is found twice: by importing its module (and the
registered topic or figure it loads by name) in a fresh interpreter, which gives the imports that run at once,
and from the import graph (``slmbench.sources``), which adds those inside functions. Rules that run a model or
build its weights write precious, protected outputs: they have no code inputs, so an edit never reruns them.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from snakemake.api import SnakemakeApi
from snakemake.iocontainers import Wildcards
from snakemake.settings.types import OutputSettings, ResourceSettings

from slmbench.analysis.topics import topic_files
from slmbench.cli import entry_module
from slmbench.figures.registry import figure
from slmbench.sources import PACKAGE, code_files, module_name

ROOT = Path(__file__).resolve().parents[3]
COMMAND = re.compile(r"\bslmbench ([a-z][a-z-]*)")
MEMBERS = {("analyze", "topic"): topic_files, ("figure", "name"): lambda name: figure.declared[name].files}
"""(command, wildcard) whose value names the registered member the command imports by name."""
PRELOADED = (
    "click",
    "matplotlib.pyplot",
    "numpy",
    "pandas",
    "pyarrow.parquet",
    "pydantic",
    "scipy.stats",
    "yaml",
)
IMPORTER = """
import importlib, json, os, sys
for name in sys.argv[2:]:
    try:
        importlib.import_module(name)
    except ImportError:
        pass
for line in sys.stdin:
    roots = json.loads(line)
    read, write = os.pipe()
    if os.fork() == 0:
        try:
            for root in roots:
                importlib.import_module(root)
            names = [n for n in sys.modules if n.split(".")[0] == "slmbench"]
            answer = sorted(sys.modules[n].__file__ for n in names if getattr(sys.modules[n], "__file__", None))
        except BaseException as exc:
            answer = {"error": f"{roots}: {exc!r}"}
        os.write(write, json.dumps(answer).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as answer:
        print(answer.read(), flush=True)
    os.wait()
"""
"""Imports each line's modules in a child forked from an interpreter that imported no slmbench module (the
libraries they use are preloaded, so each child is quick) and prints the package files it then holds."""


@pytest.fixture(scope="module")
def workflow() -> Iterator[Any]:
    with SnakemakeApi(OutputSettings()) as api:
        yield api.workflow(
            resource_settings=ResourceSettings(cores=1), snakefile=ROOT / "Snakefile", workdir=ROOT
        )._workflow


def _jobs(workflow: Any) -> list[tuple[str, dict[str, str], list[str]]]:
    """(rule, wildcards, commands) of every rule that runs ``slmbench``, once per value of its wildcards."""
    jobs = []
    for rule in workflow.rules:
        commands = COMMAND.findall(rule.shellcmd or "")
        if not commands:
            continue
        names = sorted(rule.wildcard_names)
        if len(names) != 1 or names[0] not in rule.wildcard_constraints:
            jobs.append((rule.name, {}, commands))  # no wildcard, or several (a shard, a run): no member
            continue
        for value in rule.wildcard_constraints[names[0]].split("|"):  # a topic, a figure, a table
            jobs.append((rule.name, {names[0]: value}, commands))
    return jobs


def _roots(commands: list[str], wildcards: dict[str, str]) -> list[str]:
    members = [
        module_name(Path(p))
        for command in commands
        for name, value in wildcards.items()
        if (command, name) in MEMBERS
        for p in MEMBERS[command, name](value)
    ]
    return ["slmbench.__main__", *(entry_module(c) for c in commands), *members]


def _imported(root_sets: list[list[str]]) -> list[set[Path]]:
    """The package files importing each set of modules loads, in a fresh interpreter (``slmbench.__main__`` is
    left out: importing it runs the command line)."""
    lines = "".join(json.dumps([r for r in roots if r != "slmbench.__main__"]) + "\n" for roots in root_sets)
    run = subprocess.run(
        [sys.executable, "-c", IMPORTER, "-", *PRELOADED],
        input=lines,
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    answers = [json.loads(line) for line in run.stdout.splitlines()]
    errors = [a["error"] for a in answers if isinstance(a, dict)]
    assert errors == [], errors
    return [{Path(p).resolve() for p in answer} for answer in answers]


def _inputs(workflow: Any, rule: str, wildcards: dict[str, str]) -> dict[str, set[Path]]:
    expanded = workflow.get_rule(rule).expand_input(Wildcards(fromdict=wildcards))[0]
    named = {name: expanded.get(name) for name in expanded.keys()}
    return {
        name: {(ROOT / str(f)).resolve() for f in ([value] if isinstance(value, str) else value)}
        for name, value in named.items()
        if value is not None
    }


def test_every_module_a_rules_command_imports_is_among_its_inputs(workflow: Any) -> None:
    jobs = _jobs(workflow)
    assert {"tidy", "analyze_trials", "analyze", "fig", "table", "appendix", "site"} <= {
        r for r, _, _ in jobs
    }
    runs = [(rule, wc, cmds) for rule, wc, cmds in jobs if not _precious(workflow, rule)]
    imported = _imported([_roots(cmds, wc) for _, wc, cmds in runs])
    missing = []
    for (rule, wildcards, commands), loaded in zip(runs, imported, strict=True):
        assert loaded, f"{rule}: importing {commands} loaded no module"
        inputs = set().union(*_inputs(workflow, rule, wildcards).values())
        graph = {p.resolve() for p in code_files(_roots(commands, wildcards))}
        assert loaded <= graph, f"{rule}: the import graph misses {sorted(loaded - graph)}"
        missing += [f"{rule} {wildcards}: {p.relative_to(PACKAGE)}" for p in sorted(graph - inputs)]
    assert missing == [], "code a rule runs but does not depend on:\n" + "\n".join(missing)


def _precious(workflow: Any, rule: str) -> bool:
    return any(f.flags.get("protected") for f in workflow.get_rule(rule).output)


def test_rules_that_run_models_are_precious_and_have_no_code_inputs(workflow: Any) -> None:
    precious = {rule for rule, _, _ in _jobs(workflow) if _precious(workflow, rule)}
    assert precious == {"shard", "eligibility_run", "eligibility_quantize"}
    for rule in precious:
        names = set(workflow.get_rule(rule).input.keys())
        assert "code" not in names, f"{rule}: a code edit would rerun a model"


def test_no_rule_lists_package_files_by_hand() -> None:
    listed = [
        f"{path.name}:{n}: {line.strip()}"
        for path in [ROOT / "Snakefile", *sorted((ROOT / "code" / "rules").rglob("*.smk"))]
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if "code/slmbench" in line and not line.lstrip().startswith("#")
    ]
    assert listed == []
