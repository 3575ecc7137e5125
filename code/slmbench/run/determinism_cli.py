"""``slmbench determinism``: this host's greedy replies against the committed reference, and its ledger line."""

from __future__ import annotations

import json
from pathlib import Path

import click

from slmbench.config import load_config
from slmbench.run.determinism import (
    LEDGER_FILE,
    REFERENCE_FILE,
    REFERENCE_TASKS,
    differences,
    ledger_line,
    measure,
    reference_document,
    reference_models,
)


@click.command()
@click.option("--config", "config_path", default="config.yaml", show_default=True)
@click.option(
    "--reference",
    "reference_path",
    type=click.Path(path_type=Path),
    default=REFERENCE_FILE,
    show_default=True,
)
@click.option(
    "--ledger", "ledger_path", type=click.Path(path_type=Path), default=LEDGER_FILE, show_default=True
)
@click.option(
    "--write-reference", is_flag=True, help="record this host's replies as the reference (once per build)"
)
@click.option("--no-ledger", is_flag=True, help="compare only; add no line to the ledger")
def determinism(
    config_path: str, reference_path: Path, ledger_path: Path, write_reference: bool, no_ledger: bool
) -> None:
    """Send the reference prompts to the smallest and largest model at T = 0 and compare the replies' tokens with
    the reference; add this host's line to the ledger. Exits 1 when a reply differs (each difference printed)."""
    config = load_config(config_path)
    models = reference_models(config)
    measured = measure(config, models)
    if write_reference:
        reference_path.parent.mkdir(parents=True, exist_ok=True)
        reference_path.write_text(json.dumps(reference_document(measured), indent=1) + "\n")
        click.echo(f"wrote {reference_path}: {len(models)} models x {len(REFERENCE_TASKS)} prompts")
    reference = json.loads(reference_path.read_text())
    found = differences(reference, measured)
    line = ledger_line(reference, found, sum(len(r) for r in measured.values()))
    if not no_ledger:
        ledger_path.parent.mkdir(parents=True, exist_ok=True)
        with ledger_path.open("a") as ledger:  # one whole line per host
            ledger.write(json.dumps(line, sort_keys=True) + "\n")
    click.echo(f"{line['cpu']}, build {line['build']}: {line['matched']} of {line['replies']} replies match")
    for difference in found:
        click.echo(f"  differs: {difference}")
    if found:
        raise SystemExit(1)
