"""``slmbench teacher-force``: a shard's recorded replies scored again by its model, beside their live values."""

from __future__ import annotations

from pathlib import Path

import click

from slmbench.backends.base import BackendError
from slmbench.backends.llamacpp_build import installed_build
from slmbench.config import ConfigError, load_config, model_spec
from slmbench.records.atomic import dump_json, write_atomic
from slmbench.records.ledger import iter_records
from slmbench.run.key import ShardKey
from slmbench.run.plan import shard_for
from slmbench.run.runner import run_settings
from slmbench.run.teacher_forcing import (
    REPORT_DIR,
    ForcingModel,
    ReplayDiverged,
    ReplyComparison,
    force_trial,
    report,
)


@click.command("teacher-force")
@click.option("--config", "config_path", default="config.yaml", show_default=True)
@click.option(
    "--shard", required=True, help="<model>/<stem> of a recorded shard whose trials start from a clean KV"
)
@click.option(
    "--raw-dir", type=click.Path(path_type=Path), default=Path("data/raw/slmbench"), show_default=True
)
@click.option(
    "--trials", "n_trials", type=click.IntRange(min=1), default=None, help="the first N trials (default: all)"
)
@click.option(
    "--out", type=click.Path(path_type=Path), default=None, help=f"default: {REPORT_DIR}/<shard>.json"
)
def teacher_force(
    config_path: str, shard: str, raw_dir: Path, n_trials: int | None, out: Path | None
) -> None:
    """Replay the recorded trials of SHARD with its model scoring each recorded reply (teacher forcing) and
    write how the forced log-probabilities compare with the live ones. Exits 1 when a comparable reply differs."""
    from slmbench.models.registry import open_backend

    try:
        config = load_config(config_path)
        key = ShardKey.from_name(shard)
        run = run_settings(config, shard_for(config, key))
    except (ConfigError, ValueError) as exc:
        raise click.ClickException(str(exc)) from None
    if not run.conditions.clean_kv:
        raise click.ClickException(
            f"{shard}: its trials share a KV cache (no clean_kv): each needs the one before"
        )
    path = raw_dir / f"{shard}.jsonl"
    records = [r.model_dump(mode="json") for _, r in iter_records(path)]
    chosen = [r for r in records if r["events"][-1].get("stop_reason") != "budget"][:n_trials]
    backend = open_backend(key.model, model_spec(config, key.model))
    if not isinstance(backend, ForcingModel):
        raise click.ClickException(
            f"{key.model}: its backend cannot score a given reply (teacher forcing needs llama.cpp)"
        )
    results: dict[str, list[ReplyComparison]] = {}
    try:
        for record in chosen:
            results[record["trial_id"]] = force_trial(run, record, backend)
    except (ReplayDiverged, BackendError, KeyError) as exc:
        raise click.ClickException(f"{path}: {exc}") from None
    finally:
        backend.close()
    found = report(key.name, installed_build()["identity"], results)
    target = out or REPORT_DIR / f"{shard}.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(target, dump_json(found))
    click.echo(
        f"{target}: {found['comparable_replies']} of {found['replies']} replies comparable, "
        f"{found['equal_replies']} equal to the last bit (largest difference {found['max_abs_difference']:.3g} nats)"
    )
    if found["equal_replies"] < found["comparable_replies"]:
        raise SystemExit(1)
