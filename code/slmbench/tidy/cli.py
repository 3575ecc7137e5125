"""``slmbench tidy``: validate every raw shard and write the tidy tables and the manifest."""

from __future__ import annotations

from pathlib import Path

import click

from slmbench.config import load_config
from slmbench.records.ledger import RawRecordError
from slmbench.records.shard_cache import cache_options
from slmbench.tidy.tables import NoTrialsError, no_trials_message, study_shards, tidy_tables
from slmbench.tidy.writer import write_manifest, write_parquet


@click.command()
@click.option("--config", "config_path", default="config.yaml", show_default=True)
@click.option("--raw-dir", type=click.Path(path_type=Path), default=Path("data/raw"), show_default=True)
@click.option(
    "--external",
    type=click.Path(exists=True, path_type=Path),
    default=None,
    help="Imported external trials (parquet) to append.",
)
@click.option("--out-trials", type=click.Path(path_type=Path), required=True)
@click.option("--out-events", type=click.Path(path_type=Path), required=True)
@click.option("--out-manifest", type=click.Path(path_type=Path), required=True)
@cache_options
def tidy(
    config_path: str,
    raw_dir: Path,
    external: Path | None,
    out_trials: Path,
    out_events: Path,
    out_manifest: Path,
    cache_dir: Path | None,
    jobs: int,
) -> None:
    """Validate every raw shard of the study's models and write the tidy tables (shards of other models are left
    out, their count logged)."""
    config = load_config(config_path)
    shards = study_shards(raw_dir, config)
    shards.log_left_out(raw_dir)
    try:
        trials, events, manifest = tidy_tables(
            shards.kept, config, external, Path.cwd(), cache_dir=cache_dir, jobs=jobs
        )
    except NoTrialsError:
        raise click.ClickException(no_trials_message(raw_dir, config_path)) from None
    except RawRecordError as exc:
        raise click.ClickException(str(exc)) from None
    write_parquet(trials, out_trials)
    write_parquet(events, out_events)
    write_manifest(manifest, out_manifest)
    click.echo(f"{out_trials}: {trials.num_rows} trials; {out_events}: {len(events)} events")
