"""``slmbench init DIR``: a new study folder, and the commands to run in it; ``slmbench import-records``: another
study's records of a model, brought into this one."""

from __future__ import annotations

import shlex
from pathlib import Path

import click

from slmbench.study.folder import StudyFolderError, next_commands, write_study
from slmbench.study.records import ImportRecordsError, import_records


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


@click.command("import-records")
@click.argument("source", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option(
    "--model",
    "models",
    multiple=True,
    help="A model to bring over (repeat; default: every one both configure).",
)
def import_records_cmd(source: Path, models: tuple[str, ...]) -> None:
    """Copy the recorded shards of models from the study in SOURCE into the study in this folder (both must
    configure each model alike; a shard recorded here already is kept)."""
    try:
        imported = import_records(source, list(models))
    except ImportRecordsError as exc:
        raise click.ClickException(str(exc)) from None
    for item in imported:
        kept = f"; {len(item.kept)} recorded here already, kept" if item.kept else ""
        click.echo(f"{item.model}: {len(item.copied)} shard(s) copied from {source}{kept}")
