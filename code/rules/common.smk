# What every stage shares: the validated config, the paths every stage uses, the rules' code inputs and the raw
# shards recorded. Each stage's own constants and input functions are in its rule file.
#
# A study is a folder: Snakemake runs in it (the shipped study is this repository's root; `slmbench init` makes
# others, whose workflow/Snakefile uses this workflow as a module), and every path a rule writes or reads of the
# study is relative to it. The workflow's own files (its code, the paper's templates and sources, the task and
# third-party data) are this repository's: `tool_path` finds them from the workflow wherever the study is.
import os
import re
import shlex
import sys
from pathlib import Path

from slmbench.cli import entry_module
from slmbench.config import ConfigError, parse_config
from slmbench.sources import PACKAGE, code_files, module_name, source_files
from slmbench.tidy import no_trials_message, study_shards
from slmbench.vocab import STUDY_ID
from snakemake.exceptions import WorkflowError

# Build options: settings of the build, not of the science, accepted by `--config` beside config.yaml.
BUILD_OPTIONS = ("site_base",)
TOOL_DIR = Path(str(workflow.current_basedir)).parents[1]  # code/rules/ -> the repository
STUDY_IS_TOOL = TOOL_DIR.resolve() == Path.cwd().resolve()  # the shipped study: its folder is the repository


def tool_path(relative):
    """A file of the workflow itself, named relative in the repository's own study (as it always
    was), else the workflow's absolute path (a study folder elsewhere reads it there)."""
    return str(relative) if STUDY_IS_TOOL else str(TOOL_DIR / relative)


STUDY_CONFIG = workflow.configfiles[-1] if workflow.configfiles else "config.yaml"
try:  # a config error is one line naming the field, never a traceback
    STUDY = parse_config({key: value for key, value in config.items() if key not in BUILD_OPTIONS}, STUDY_CONFIG)
except ConfigError as exc:
    sys.exit(str(exc))
# Rules write `slmbench ...`; this shell function runs it with the interpreter that runs Snakemake, so a rule
# works without the virtual environment on PATH.
# (.format and then Snakemake format the prefix: each halves the braces.)
shell.prefix("set -euo pipefail; slmbench() {{{{ {} -m slmbench \"$@\"; }}}}; ".format(shlex.quote(sys.executable)))
RAW_ROOT = "data/raw"  # the study's records: its own, and imported studies' under their ids
RAW = f"{RAW_ROOT}/{STUDY_ID}"
PROCESSED = "data/processed"
SHARD_CACHE = f"{PROCESSED}/cache"  # each raw shard's tidy tables and replay, kept while shard and package hold
REPLAY = f"{PROCESSED}/replay_strict.parquet"
TEACHER_FORCING = "data/teacher_forcing"  # `slmbench teacher-force` reports, <model>/<shard stem>.json


def _relative(paths):
    """The workflow's own paths of the package's files (under its code folder): the import graph is read from
    the package imported, which may be another copy of the same sources (an editable install elsewhere)."""
    return sorted({tool_path(Path("code") / "slmbench" / Path(p).relative_to(PACKAGE)) for p in paths})


def code_inputs(*commands, files=()):
    """The package files the rule's `slmbench <command>`s run: each command's module (slmbench.cli), the modules
    of ``files`` (a registered topic or figure, which the command imports by name), everything they import, and
    the data files of their packages (slmbench.sources.code_files: read from the import graph, never listed)."""
    roots = ["slmbench.__main__", *(entry_module(c) for c in commands), *(module_name(Path(f)) for f in files)]
    return _relative(code_files(roots))


ALL_PACKAGE_SOURCES = _relative(source_files())  # what source_sha256 hashes: the macros rule records it in
# provenance.json, so any edit of the package reruns that rule
SITE = "site"
# Where each \res{} of the PDF links: <site_base>/numbers/<key>.html. Default: the site built here, relative to
# paper/main.pdf; publish both and set e.g. `--config site_base=https://example.org/slmbench`.
SITE_BASE = str(config.get("site_base", os.path.relpath(SITE, "paper")))
if not re.fullmatch(r"[A-Za-z0-9:/._~-]+", SITE_BASE):
    raise ValueError(f"site_base {SITE_BASE!r}: use letters, digits and : / . _ ~ - only (it goes into LaTeX)")


def output_dir(wildcards, output):
    """The folder of the rule's first output (what a command writing several files there is given)."""
    return os.path.dirname(output[0])


def input_dir(wildcards, input):
    """The folder of the rule's first input (a published study's root, the templates' folder)."""
    return os.path.dirname(input[0])


def part_file(wildcards, output):
    """Where a precious run writes until it is complete (renamed to its output then): ``<output>.part``."""
    return f"{output[0]}.part"


def _named(input, name):
    """The files of input ``name`` (none where the rule's input lacks it or it is an empty list)."""
    files = input.get(name, [])
    return [files] if isinstance(files, str) else list(files)


def external_option(wildcards, input):
    """``--external <trials>`` where the rule reads a published study's imported trials (the config names one)."""
    return " ".join(f"--external {shlex.quote(path)}" for path in _named(input, "external"))


def summary_option(wildcards, input):
    """``--summary <summary>`` where the rule reads a published study's imported summary."""
    return " ".join(f"--summary {shlex.quote(path)}" for path in _named(input, "summary"))


def recorded_shards(wildcards):
    """The raw shards of the study's models already recorded (analysis never triggers new model runs; shards of
    a model no longer configured are not the study's); none at all stops the build with the command that records
    them."""
    shards = [str(p) for p in study_shards(Path(RAW_ROOT), STUDY).kept]
    if not shards:
        raise WorkflowError(no_trials_message(Path(RAW), STUDY_CONFIG))
    return shards
