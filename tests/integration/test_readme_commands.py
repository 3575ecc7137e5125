"""Every command README.md and docs/ show works as written in this checkout.

Each command of every ``bash`` block is checked the cheapest way that still catches a wrong line: Make and
Snakemake targets by a dry run (every target, rule, file and option resolves), ``slmbench`` subcommands (and
those of Inspect's ``inspect``) by their options (each one given is an option of that subcommand), scripts by their existence and, for Python
scripts, by the options their ``--help`` lists, ``pytest`` by the test files named, shell scripts by the action
their ``case`` handles, other programs by being installed, llama.cpp's server by its cached path (the one ``make llama-server`` builds) and, once built, by the options its ``--help`` lists. A command that no rule covers fails the test, so a
new line needs one. Commands that load a model or run for long (``slmbench run``, the benchmarks) are checked
this way too, without running them. The SLURM profiles themselves run only in ``make slurm-test`` (they need a
cluster); here their files must exist.

A study folder's commands are checked in one: ``slmbench init ~/my-study`` makes it (in a temporary folder whose
path has a space, with a scripted model in its config and its trials run), and a command written
``$ROOT/.venv/bin/...`` (this checkout's, run in the study folder after ``cd ~/my-study``) is checked there.

Code spans in the prose that name a command are checked for the names they use: a ``slmbench`` span by its
subcommand and options, a ``.venv/bin/`` span as a block's command, a ``snakemake`` span by its target (a rule
or a path), a ``make`` span by its Makefile target. Shell commands belong in ``bash`` blocks: a block in
another shell dialect, or an unlabelled block that holds a command, fails.
"""

from __future__ import annotations

import functools
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from importlib import metadata
from pathlib import Path

import click
import pytest
import yaml
from click.testing import CliRunner

from slmbench.cli import main as slmbench_cli

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
STUDY = Path(tempfile.gettempdir()) / "slmbench-readme" / "my study"
"""Where ``~/my-study`` of the docs is made for the checks (a space in its path, as a user's may have)."""
PLACEHOLDERS = {
    "$ROOT": str(ROOT),
    "$WORK": "/tmp/slmbench-readme-work",
    "~/my-study": str(STUDY),
    "~/other-study": str(STUDY.parent / "other study"),
}
STUDY_MODELS = {"double": {"backend": "scripted", "params_b": 0.1, "instruct": True, "outputs": ["No."]}}
STUDY_TASKS = {"capability": ["DA-1", "SCH-1"], "reliability": ["REL-CON-1"]}
SHELL_BUILTINS = {"cd", "export"}
FENCE = re.compile(r"^```([\w-]*)\n(.*?)^```", flags=re.S | re.M)
ASSIGNMENT = re.compile(r"^[A-Z_][A-Z0-9_]*=")
COMMAND_START = re.compile(r"^\s*(\.venv/bin/|make |slmbench |snakemake |python3? |bash |\$ )")
SHELL_DIALECTS = {"sh", "shell", "console", "zsh", "shell-session"}


def block_commands(text: str) -> list[list[str]]:
    """The commands of every ``bash`` block (continuation lines joined, comments dropped), as argument lists."""
    out: list[list[str]] = []
    for language, block in FENCE.findall(text):
        if language != "bash":
            continue
        for line in block.replace("\\\n", " ").splitlines():
            words = shlex.split(line, comments=True)
            if words:
                out.append(words)
    return out


def prose(text: str) -> str:
    """The text outside fenced blocks."""
    return FENCE.sub("", text)


def inline_commands(text: str) -> list[list[str]]:
    """Code spans of the prose that name a command with arguments (``slmbench tidy``, ``make paper``...)."""
    out: list[list[str]] = []
    for span in re.findall(r"`([^`\n]+)`", prose(text)):
        words = span.split()
        if len(words) < 2 or not (
            words[0] in ("slmbench", "snakemake", "make") or words[0].startswith(".venv/bin/")
        ):
            continue
        try:
            out.append(shlex.split(span))
        except ValueError:
            out.append(words)
    return out


def _collect(extract: object) -> dict[tuple[str, ...], list[str]]:
    """Each distinct command of every document, with the documents that show it."""
    found: dict[tuple[str, ...], list[str]] = {}
    for path in DOCS:
        for words in extract(path.read_text()):  # type: ignore[operator]
            found.setdefault(tuple(words), []).append(str(path.relative_to(ROOT)))
    return found


def _strip(words: list[str]) -> list[str]:
    """Without variable assignments or a ``timeout`` prefix, placeholders as paths."""
    while words and ASSIGNMENT.match(words[0]):
        words = words[1:]
    if words[0] == "timeout":
        words = words[
            next(i for i, w in enumerate(words[1:], 1) if not w.startswith("-") and not w.isdigit()) :
        ]
    out = []
    for word in words:
        for name, value in PLACEHOLDERS.items():
            word = word.replace(name, value)
        out.append(word)
    return out


def _options(words: list[str]) -> list[str]:
    return [w.split("=", 1)[0] for w in words if w.startswith("--")]


def _check_cli(root: click.Command, name: str, args: list[str]) -> None:
    """The subcommand chain of a click program resolves and every option given is one of the last command's."""
    command = root
    ctx = click.Context(command, info_name=name)
    rest = list(args)
    while isinstance(command, click.Group) and rest and not rest[0].startswith("-"):
        sub = command.get_command(ctx, rest[0])
        assert sub is not None, f"{name} has no subcommand {rest[0]!r}"
        command, rest = sub, rest[1:]
        ctx = click.Context(command, info_name=command.name, parent=ctx)
    known = {opt for p in command.params for opt in (*p.opts, *p.secondary_opts)} | {"--help"}
    unknown = [o for o in _options(rest) if o not in known]
    assert not unknown, f"{name} {command.name}: unknown options {unknown}"
    if (
        name == "slmbench" and command.name == "init" and rest
    ):  # made for real: the study's commands run there
        assert rest == [str(STUDY)], f"slmbench init: the docs' study folder is ~/my-study, not {rest}"
        assert (_study() / "workflow" / "Snakefile").is_file()


def _check_slmbench(args: list[str]) -> None:
    """The subcommand chain resolves and every option given is one of the last command's options."""
    _check_cli(slmbench_cli, "slmbench", args)


def _check_inspect(args: list[str]) -> None:
    """Inspect's own command line (``inspect-ai``, pinned in the lock), checked as ``slmbench``'s is."""
    from inspect_ai._cli.main import inspect as inspect_cli

    _check_cli(inspect_cli, "inspect", args)


def _run(args: list[str], timeout: int = 300, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False)


@functools.cache
def _study() -> Path:
    """``~/my-study``: made by ``slmbench init``, a scripted model put into its config, its trials run."""
    shutil.rmtree(STUDY.parent, ignore_errors=True)
    made = CliRunner().invoke(slmbench_cli, ["init", str(STUDY)])
    assert made.exit_code == 0, made.output
    config = yaml.safe_load((STUDY / "config.yaml").read_text())
    config.update(models=STUDY_MODELS, tasks=STUDY_TASKS, repeats=1)
    (STUDY / "config.yaml").write_text(yaml.safe_dump(config))
    trials = _run([sys.executable, "-m", "snakemake", "trials", "--cores", "2"], timeout=900, cwd=STUDY)
    assert trials.returncode == 0, trials.stderr[-2000:]
    return STUDY


@functools.cache
def _dry_run(args: tuple[str, ...], in_study: bool = False) -> subprocess.CompletedProcess[str]:
    return _run([sys.executable, "-m", "snakemake", *args, "-n"], cwd=_study() if in_study else ROOT)


def _check_snakemake(args: list[str], in_study: bool = False) -> None:
    """A dry run resolves every target; a profile's folder must hold its config (run by ``make slurm-test``)."""
    if "--profile" in args:
        profile = Path(args[args.index("--profile") + 1])
        assert (ROOT / profile / "config.yaml").exists(), f"no profile {profile}"
        return
    if "--report" in args:  # the report is written from a built workflow; its targets must resolve
        i = args.index("--report")
        args = args[:i] + args[i + 2 :]
    done = _dry_run(tuple(args), in_study)
    assert done.returncode == 0, (
        f"snakemake {' '.join(args)} -n failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}"
    )


def _check_pytest(args: list[str]) -> None:
    """Every test file or folder named exists; every option is one of pytest's."""
    paths = [a.split("::")[0] for a in args if not a.startswith("-") and "/" in a]
    missing = [p for p in paths if not (ROOT / p).exists()]
    assert not missing, f"pytest: no such test file {missing}"
    options = set(_options(args)) - {"--durations", "--collect-only", "--co", "--lf", "--ff", "--maxfail"}
    assert not options, f"pytest: options this check does not know {sorted(options)}"


def _check_python(args: list[str]) -> None:
    """A script or module that exists; a script's ``--help`` lists every option given."""
    if args[0] == "-m":
        module = args[1]
        if module == "slmbench":
            _check_slmbench(args[2:])
        elif module == "pytest":
            _check_pytest(args[2:])
        elif module != "json.tool":
            path = ROOT / (module.replace(".", "/") + ".py")
            assert path.exists(), f"no module {module}"
        return
    script = Path(args[0])
    path = script if script.is_absolute() else ROOT / script
    assert path.exists(), f"no script {script}"
    wanted = _options(args[1:])
    if wanted:
        done = _script_help(str(path))
        assert done.returncode == 0, done.stderr[-2000:]
        missing = [o for o in wanted if o not in done.stdout]
        assert not missing, f"{script}: --help does not list {missing}"


@functools.cache
def _script_help(path: str) -> subprocess.CompletedProcess[str]:
    return _run([sys.executable, path, "--help"])


def _check_llama_server(program: str, args: list[str]) -> None:
    """The binary ``make llama-server`` builds, at its cached path; once built, every option given is listed by
    its ``--help``."""
    from slmbench.models.llama_server import LlamaServerError, llama_server_binary
    from slmbench.models.weights import cache_dir

    try:
        binary = llama_server_binary()
    except LlamaServerError:
        binary = None
    version = metadata.version("llama_cpp_python")
    expected = cache_dir() / "llama-server" / version / "llama-server"
    assert Path(program).expanduser() == expected, (
        f"{program} is not the binary `make llama-server` builds ({expected})"
    )
    if binary is not None:
        listed = _run([str(binary), "--help"]).stdout
        missing = [
            o for o in _options(args) + [w for w in args if re.fullmatch(r"-[a-z]+", w)] if o not in listed
        ]
        assert not missing, f"llama-server --help does not list {missing}"


def check(words: list[str]) -> None:
    """Check one command of a ``bash`` block (see the module doc)."""
    in_study = words[0].startswith("$ROOT/")  # this checkout's command, run in the study folder
    words = _strip(words)
    program, args = words[0], words[1:]
    name = Path(program).name
    if program in SHELL_BUILTINS:
        return
    if program == "make":
        done = _run(["make", "-n", *args])
        assert done.returncode == 0, f"make -n {' '.join(args)}: {done.stderr[-2000:]}"
    elif name == "snakemake" and program.endswith(".venv/bin/snakemake"):
        _check_snakemake(args, in_study)
    elif name == "slmbench" and program.endswith(".venv/bin/slmbench"):
        _check_slmbench(args)
    elif name == "inspect" and program.endswith(".venv/bin/inspect"):
        _check_inspect(args)
    elif name == "python" and program.endswith(".venv/bin/python"):
        _check_python(args)
    elif name in ("ruff", "mypy") and program.startswith(".venv/bin/"):
        assert (ROOT / program).exists(), f"{program} is not installed"
        missing = [
            a
            for a in args
            if not a.startswith("-") and a not in ("check", "format") and not (ROOT / a).exists()
        ]
        assert not missing, f"{name}: no such path {missing}"
    elif program == "bash":
        script = ROOT / args[0] if not Path(args[0]).is_absolute() else Path(args[0])
        assert script.exists(), f"no script {args[0]}"
        if len(args) > 1:
            assert re.search(rf"^\s*{re.escape(args[1])}\)", script.read_text(), re.M), (
                f"{args[0]} has no action {args[1]!r}"
            )
    elif program == "python3" and args[:2] == ["-m", "json.tool"]:
        assert shutil.which("python3")
    elif name == "llama-server":
        _check_llama_server(program, args)
    elif program in ("pdftoppm", "sha256sum"):
        assert shutil.which(program), f"{program} is not installed"
    else:
        pytest.fail(f"no rule checks the command {' '.join(words)!r} (a bare program name needs PATH)")


@functools.cache
def _rules() -> frozenset[str]:
    files = [ROOT / "Snakefile", *sorted((ROOT / "code" / "rules").glob("*.smk"))]
    return frozenset(m for f in files for m in re.findall(r"^rule (\w+):", f.read_text(), re.M))


@functools.cache
def _make_targets() -> frozenset[str]:
    return frozenset(re.findall(r"^([\w.-]+):", (ROOT / "Makefile").read_text(), re.M))


def check_inline(words: list[str]) -> None:
    """Check the names a code span uses (see the module doc)."""
    words = _strip(words)
    program, args = words[0], words[1:]
    if program == "slmbench":
        _check_slmbench(args)
    elif program == "snakemake":
        target = next((a for a in args if not a.startswith("-")), "paper")
        assert target in _rules() or re.match(r"(data|figures|paper|site)/", target), (
            f"snakemake: {target!r} is neither a rule nor a file of the workflow"
        )
    elif program == "make":
        unknown = [a for a in args if not a.startswith("-") and "=" not in a and a not in _make_targets()]
        assert not unknown, f"make: no target {unknown}"
    else:
        check(words)


COMMANDS = _collect(block_commands)
INLINE = _collect(inline_commands)


def test_docs_show_commands() -> None:
    assert len(block_commands((ROOT / "README.md").read_text())) >= 8
    assert len(COMMANDS) > 50


@pytest.mark.parametrize(
    "words", list(COMMANDS), ids=[f"{COMMANDS[w][0]}: {' '.join(w)[:60]}" for w in COMMANDS]
)
def test_command_works_as_written(words: tuple[str, ...]) -> None:
    check(list(words))


@pytest.mark.parametrize("words", list(INLINE), ids=[f"{INLINE[w][0]}: {' '.join(w)[:60]}" for w in INLINE])
def test_command_named_in_the_text_exists(words: tuple[str, ...]) -> None:
    check_inline(list(words))


@pytest.mark.parametrize("path", DOCS, ids=[str(p.relative_to(ROOT)) for p in DOCS])
def test_shell_commands_are_in_bash_blocks(path: Path) -> None:
    """A command in a block of another dialect, or in an unlabelled block, would escape the checks above."""
    for language, block in FENCE.findall(path.read_text()):
        assert language not in SHELL_DIALECTS, f"{path.name}: a ```{language} block; write ```bash"
        if not language:
            commands = [line for line in block.splitlines() if COMMAND_START.match(line)]
            assert not commands, f"{path.name}: commands in an unlabelled block: {commands[:3]}"


def test_a_bare_program_name_is_refused() -> None:
    """A line that relies on PATH (``slmbench run ...`` instead of ``.venv/bin/slmbench run ...``) fails."""
    with pytest.raises(pytest.fail.Exception, match="needs PATH"):
        check(["slmbench", "run", "--model", "m"])
    with pytest.raises(AssertionError, match="unknown options"):
        check([".venv/bin/slmbench", "run", "--no-such-option"])
    with pytest.raises(AssertionError, match="unknown options"):
        check([".venv/bin/inspect", "view", "--no-such-option"])
    with pytest.raises(AssertionError, match="-n failed"):
        check([".venv/bin/snakemake", "no_such_target", "--cores", "1"])
    with pytest.raises(AssertionError, match="no action"):
        check(["bash", "envs/slurm_local.sh", "restart"])
    with pytest.raises(AssertionError, match="does not list"):
        check([".venv/bin/python", "bench/dag_scale.py", "--no-such-option"])
    with pytest.raises(AssertionError, match="no such test file"):
        check([".venv/bin/python", "-m", "pytest", "tests/unit/test_no_such_module.py"])


def test_a_wrong_name_in_the_text_is_refused() -> None:
    with pytest.raises(AssertionError, match="no subcommand"):
        check_inline(["slmbench", "tidy-up"])
    with pytest.raises(AssertionError, match="neither a rule"):
        check_inline(["snakemake", "no_such_rule"])
    with pytest.raises(AssertionError, match="no target"):
        check_inline(["make", "no-such-target"])
    assert inline_commands("Run `slmbench tidy --jobs 2` or `make paper`; `slmbench` alone is a name.") == [
        ["slmbench", "tidy", "--jobs", "2"],
        ["make", "paper"],
    ]


def test_variable_assignments_and_timeouts_are_stripped() -> None:
    assert _strip(["OLLAMA_HOST=http://h:1", "timeout", "-k", "10", "900", "make", "paper"]) == [
        "make",
        "paper",
    ]


def test_a_study_folders_commands_are_checked_in_the_study_folder() -> None:
    """``$ROOT/.venv/bin/snakemake ...`` runs in ``~/my-study``: its targets resolve there (its scripted model's
    trials recorded), and a target it lacks fails."""
    check(["$ROOT/.venv/bin/snakemake", "paper", "--cores", "2"])
    assert (_study() / "data/raw/slmbench/double").is_dir()
    with pytest.raises(AssertionError, match="-n failed"):
        check(["$ROOT/.venv/bin/snakemake", "data/raw/slmbench/gone/capability_T0.jsonl", "--cores", "1"])
