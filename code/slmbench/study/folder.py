"""Writing a new study folder: its config.yaml (what every study needs) and what Snakemake needs to run the
slmbench workflow there, as Snakemake deploys a workflow (as ``snakedeploy`` writes it): ``workflow/Snakefile``
uses this repository's Snakefile as a module with the study's config, and a workflow profile sets the run's
defaults. Snakemake finds both in the folder, so ``snakemake trials --cores 2`` runs there as written; every
path a rule reads or writes is relative to the folder, and the workflow's own files are found from the module.
"""

from __future__ import annotations

import json
import shlex
import sys
from importlib import resources
from pathlib import Path

from slmbench.sources import PACKAGE

WORKFLOW = PACKAGE.parent.parent / "Snakefile"
"""The workflow a study folder runs: this repository's Snakefile."""
PROFILE = """\
# Snakemake's defaults for every run in this study folder (a workflow profile; `slmbench init` wrote it).
# keep-going: a failing trial shard (a model that does not load, a server that does not answer) does not stop the
# others; the run ends with the failed shards and the reason of each.
keep-going: true
"""
SNAKEFILE = """\
# This study, run by the slmbench workflow as a Snakemake module (as snakedeploy deploys a workflow): the rules
# come from the workflow, the config is this folder's config.yaml, and every file a rule writes (records, tables,
# figures, paper, audit site) is written in this folder. `slmbench init` wrote it.
from snakemake.utils import min_version

from slmbench.run.failures import report_failures

min_version("8.0")


configfile: "config.yaml"


module slmbench:
    snakefile:
        {workflow}
    config:
        config


use rule * from slmbench


onerror:
    report_failures(log)
"""
FILES = ("config.yaml", "workflow/Snakefile", "workflow/profiles/default/config.yaml")
"""What ``write_study`` writes, relative to the study folder."""


class StudyFolderError(ValueError):
    """The folder already holds a study, or the workflow it would run is not here."""


def write_study(folder: Path, workflow: Path = WORKFLOW) -> list[Path]:
    """Write a new study folder (created if absent) that runs ``workflow``; returns the files written.

    Raises:
        StudyFolderError: The folder already has one of the files, or ``workflow`` does not exist (the package is
            not run from its repository).
    """
    if not workflow.is_file():
        raise StudyFolderError(
            f"{workflow} is missing: `slmbench init` needs the slmbench repository it runs from"
        )
    targets = [folder / name for name in FILES]
    present = [str(path) for path in targets if path.exists()]
    if present:
        raise StudyFolderError(f"{present[0]} exists: {folder} holds a study already (nothing was written)")
    texts = [
        resources.files("slmbench.study").joinpath("config_template.yaml").read_text("utf-8"),
        SNAKEFILE.format(workflow=json.dumps(str(workflow.resolve()))),
        PROFILE,
    ]
    for path, text in zip(targets, texts, strict=True):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return targets


def next_commands(folder: Path) -> list[str]:
    """The commands to run next, in the study folder, with the interpreter's own ``slmbench`` and ``snakemake``:
    check the models, run the trials, build the paper."""
    bin_dir = Path(sys.executable).parent
    slmbench, snakemake = (shlex.quote(str(bin_dir / name)) for name in ("slmbench", "snakemake"))
    return [f"{slmbench} models", f"{snakemake} trials --cores 2", f"{snakemake} paper --cores 2"]
