"""``slmbench init DIR``: a new study folder, and the commands to run in it."""

from __future__ import annotations

import shlex
from pathlib import Path

import click

from slmbench.study.folder import StudyFolderError, next_commands, write_study


@click.command("init")
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
def init(folder: Path) -> None:
    """Write a new study in FOLDER: its config.yaml (put your models in it) and what Snakemake needs to run the
    workflow there; then print the next three commands."""
    try:
        written = write_study(folder)
    except StudyFolderError as exc:
        raise click.ClickException(str(exc)) from None
    where = folder.resolve()
    click.echo(f"wrote {', '.join(str(p.relative_to(folder)) for p in written)} in {where}")
    click.echo(
        f"put your models into {where / 'config.yaml'}, then run in that folder (cd {shlex.quote(str(where))}):"
    )
    for command in next_commands(where):
        click.echo(f"  {command}")
