"""``slmbench export`` (our trials in the field's formats) and ``slmbench import`` (other tools' logs as ours)."""

from __future__ import annotations

from pathlib import Path

import click

from slmbench.records.ledger import RawRecordError

_DIR = click.Path(file_okay=False, path_type=Path)


class FormatFailure(click.ClickException):
    """A file could not be read or written in its format: one line naming it, exit code 2."""

    exit_code = 2


@click.group("export")
def export() -> None:
    """Write the study's trials in another tool's format."""


@export.command("inspect")
@click.option("--raw", type=click.Path(exists=True, path_type=Path), default=Path("data/raw/slmbench"),
              show_default=True, help="A study's raw folder, data/raw, or one shard file.")  # fmt: skip
@click.option("--out", type=_DIR, default=Path("data/processed/inspect"), show_default=True,
              help="Folder of the logs: <out>/<model>/<shard>.eval.")  # fmt: skip
def export_inspect_cmd(raw: Path, out: Path) -> None:
    """Write one Inspect eval log per raw shard (open them with `inspect view --log-dir OUT`)."""
    from slmbench.formats.inspect_out import export_inspect

    try:
        written = export_inspect(raw, out)
    except RawRecordError as exc:
        raise FormatFailure(str(exc)) from None
    click.echo(f"{len(written)} Inspect logs -> {out}")


@export.command("eee")
@click.option("--raw", type=click.Path(exists=True, path_type=Path), default=Path("data/raw/slmbench"),
              show_default=True, help="A study's raw folder, data/raw, or one shard file.")  # fmt: skip
@click.option("--out", type=_DIR, default=Path("data/processed/eee"), show_default=True,
              help="Datastore root: <out>/data/<benchmark>/<developer>/<model>/<uuid>.json (+ _samples.jsonl).")  # fmt: skip
@click.option("--developer", "developers", multiple=True, metavar="MODEL=ORG",
              help="The publisher of a model's weights where Every Eval Ever's table does not know it.")  # fmt: skip
def export_eee_cmd(raw: Path, out: Path, developers: tuple[str, ...]) -> None:
    """Write the study's results and trials in Every Eval Ever's schema, checked by its validator."""
    from slmbench.formats.eee_out import export_eee
    from slmbench.formats.errors import FormatError

    named = dict(d.split("=", 1) for d in developers if "=" in d)
    bad = [d for d in developers if "=" not in d]
    if bad:
        raise click.BadParameter(f"expected MODEL=ORG, got {bad[0]!r}", param_hint="--developer")
    try:
        written = export_eee(raw, out, named)
    except (RawRecordError, FormatError) as exc:
        raise FormatFailure(str(exc)) from None
    click.echo(f"{len(written)} Every Eval Ever files -> {out}")


@click.group("import")
def import_() -> None:
    """Turn other tools' logs into the records of an imported study."""


@import_.command("inspect")
@click.argument("logs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--out", type=_DIR, required=True, help="The imported study's folder: data/raw/<study>.")
@click.option(
    "--scorer", default=None, help="The scorer whose scores are the outcomes (default: the log's first)."
)
def import_inspect_cmd(logs: tuple[Path, ...], out: Path, scorer: str | None) -> None:
    """Import the samples of Inspect eval LOGS (one trial per sample and epoch) into OUT."""
    from slmbench.formats.errors import FormatError
    from slmbench.formats.inspect_in import import_inspect

    try:
        written = import_inspect(logs, out, scorer)
    except FormatError as exc:
        raise FormatFailure(str(exc)) from None
    click.echo(f"{sum(written.values())} trials of {len(logs)} logs -> {len(written)} shards in {out}")
