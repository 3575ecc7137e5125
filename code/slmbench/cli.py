"""The ``slmbench`` command line: every pipeline step is one subcommand (``slmbench --help``)."""

from __future__ import annotations

import importlib
import logging

import click

from slmbench.config.errors import ConfigError

# subcommand name -> "module:attribute" of a click command; imported only when used, so --help stays fast.
_COMMANDS: dict[str, str] = {
    "models": "slmbench.models.cli:models",
    "run": "slmbench.run.cli:run",
    "replay": "slmbench.harness.cli:replay",
    "compare-shards": "slmbench.harness.cli:compare_shards_cmd",
    "tasks": "slmbench.tasks.cli:tasks",
    "control": "slmbench.run.control:control",
    "determinism": "slmbench.run.determinism_cli:determinism",
    "teacher-force": "slmbench.run.teacher_forcing_cli:teacher_force",
    "tidy": "slmbench.tidy.cli:tidy",
    "import-external": "slmbench.importers.cli:import_external",
    "import": "slmbench.formats.cli:import_",
    "export": "slmbench.formats.cli:export",
    "analyze": "slmbench.analysis.cli:analyze",
    "analyze-trials": "slmbench.analysis.cli:analyze_trials",
    "macros": "slmbench.analysis.cli:macros",
    "numbers": "slmbench.analysis.cli:numbers",
    "audit": "slmbench.analysis.cli:audit",
    "verify": "slmbench.analysis.cli:verify",
    "figure": "slmbench.figures.cli:figure",
    "table": "slmbench.figures.cli:table",
    "appendix": "slmbench.figures.appendix:appendix",
    "eligibility": "slmbench.eligibility.cli:eligibility",
    "view": "slmbench.site.cli:view",
    "paper-text": "slmbench.paper.cli:paper_text",
    "init": "slmbench.study.cli:init",
    "import-records": "slmbench.study.cli:import_records_cmd",
}


def entry_module(command: str) -> str:
    """The module of subcommand ``command`` (what ``slmbench <command>`` imports first).

    Raises:
        KeyError: An unknown subcommand.
    """
    return _COMMANDS[command].split(":")[0]


class LazyGroup(click.Group):
    """A click group whose subcommands are imported on first use; a malformed config.yaml ends any of them with
    its one line (the file, the field, the problem), never a traceback."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except ConfigError as exc:
            raise click.ClickException(str(exc)) from None

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(_COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = _COMMANDS.get(cmd_name)
        if target is None:
            return None
        module_name, attr = target.split(":")
        command = getattr(importlib.import_module(module_name), attr)
        assert isinstance(command, click.Command)
        return command


@click.group(cls=LazyGroup)
@click.option("-v", "--verbose", is_flag=True, help="Log debug messages.")
def main(verbose: bool) -> None:
    """slmbench: run agent trials on small models, analyse them, build the paper."""
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.INFO, format="%(levelname)s %(name)s: %(message)s"
    )
