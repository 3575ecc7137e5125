"""``slmbench run``: one shard of trials, resumable.

The shard is named by its key: ``--shard <model>/<stem>`` (what the trial rule passes), or by hand with
``--model``, ``--suite`` and ``--temperature`` and any other setting, which build the same key
(``slmbench.run.plan.shard_key``). Its repeats and tasks are the plan's (``slmbench.run.plan.shard_for``) unless
``--repeats`` or ``--tasks`` say otherwise. A serving shard (``_srv-<server>``) starts its server and stops it
when the run ends (``slmbench.run.serving``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from slmbench.backends.base import Backend, BackendError
from slmbench.config import ConfigError, StudyConfig, load_config, model_spec
from slmbench.harness.scaffolds import scaffold_names
from slmbench.models.llama_server import LlamaServer, LlamaServerError
from slmbench.records.fingerprint import trial_fingerprint
from slmbench.records.ledger import RawRecordError, ShardLockedError
from slmbench.run.key import ShardKey
from slmbench.run.plan import shard_for, shard_key
from slmbench.run.runner import run_settings, run_shard
from slmbench.run.serving import serving
from slmbench.vocab import NULL_CONTROL, PARSER_MODES, SERVERS, SUITES


def _key(config: StudyConfig, shard: str | None, rerun: str | None, by_hand: dict[str, Any]) -> ShardKey:
    """The key ``--shard`` names, or the one the by-hand options build."""
    given = [name for name, value in by_hand.items() if value is not None] + (["rerun"] if rerun else [])
    if shard is not None:
        if given:
            raise click.UsageError(f"--shard names the whole shard: drop --{given[0].replace('_', '-')}")
        try:
            return ShardKey.from_name(shard)
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--shard") from None
    missing = [name for name in ("model", "suite", "temperature") if by_hand[name] is None]
    if missing:
        raise click.UsageError(
            f"give --shard <model>/<stem>, or --model, --suite and --temperature (no --{missing[0]})"
        )
    required = {name: by_hand.pop(name) for name in ("model", "suite", "temperature")}
    return shard_key(config, **required, **by_hand, rerun=rerun)


@click.command()
@click.option("--config", "config_path", default="config.yaml", show_default=True)
@click.option(
    "--shard",
    default=None,
    help="<model>/<stem> of the shard, e.g. smollm2-135m/capability_T0_native_repaired.",
)
@click.option("--model", default=None, help="By hand: a model id from config.yaml.")
@click.option("--suite", type=click.Choice([*SUITES, NULL_CONTROL]), default=None, help="By hand.")
@click.option("--temperature", type=float, default=None, help="By hand.")
@click.option(
    "--scaffold", type=click.Choice(scaffold_names()), default=None, help="By hand (default: config)."
)
@click.option("--mode", type=click.Choice(PARSER_MODES), default=None, help="By hand (default: config).")
@click.option(
    "--n-ctx",
    type=click.IntRange(min=256),
    default=None,
    help="By hand: context window (default: the model's).",
)
@click.option(
    "--protocol", default=None, help="By hand: named protocol conditions from config (default: config)."
)
@click.option(
    "--max-turns", type=click.IntRange(min=1), default=None, help="By hand: turn limit (default: config)."
)
@click.option(
    "--max-tokens", type=click.IntRange(min=16), default=None, help="By hand: token cap (default: config)."
)
@click.option(
    "--rerun", default=None, help="By hand: label of a rerun of trials already run (part of each trial's id)."
)
@click.option(
    "--server",
    type=click.Choice(SERVERS),
    default=None,
    help="By hand: run the model's GGUF behind this server, started here (default: the model's own backend).",
)
@click.option(
    "--repeats", type=click.IntRange(min=1), default=None, help="Repeats per variant (default: the plan's)."
)
@click.option("--tasks", default="", help="Comma-separated task ids (default: the plan's).")
@click.option(
    "--out", type=click.Path(path_type=Path), required=True, help="Shard file (JSONL), appended to."
)
@click.option("--no-progress", is_flag=True, help="Hide the progress bar.")
def run(
    config_path: str,
    shard: str | None,
    rerun: str | None,
    repeats: int | None,
    tasks: str,
    out: Path,
    no_progress: bool,
    **by_hand: Any,
) -> None:
    """Run one shard of trials; rerunning skips the trials already in OUT."""
    try:
        config = load_config(config_path)
        key = _key(config, shard, rerun, by_hand)
        spec = model_spec(config, key.model)
        planned = shard_for(config, key)
        chosen = tuple(t for t in tasks.split(",") if t) or planned.tasks
        settings = run_settings(
            config, dataclasses.replace(planned, repeats=repeats or planned.repeats, tasks=chosen)
        )
    except ConfigError as exc:
        raise click.ClickException(str(exc)) from None

    def factory() -> Backend:
        from slmbench.models.registry import open_backend

        return open_backend(key.model, spec, **({"n_ctx": key.n_ctx} if key.n_ctx else {}))

    cache: dict[str, object] = {}

    def fingerprint_for(backend: Backend, temp: float, seed: int) -> dict[str, object]:
        if "fp" not in cache:
            cache["fp"] = backend.fingerprint()
        return trial_fingerprint(key.model, spec, cache["fp"], temp, seed)  # type: ignore[arg-type]

    def started(server: LlamaServer) -> None:
        click.echo(f"{key.name}: {key.server} pid {server.pid} at {server.base_url}", file=sys.stderr)

    try:
        with contextlib.ExitStack() as stack:
            opened: Callable[[], Backend] = factory
            if settings.serving is not None:
                opened = stack.enter_context(serving(key.model, spec, settings.serving, started))
            written = run_shard(settings, opened, out, fingerprint_for, progress=not no_progress)
    except (BackendError, ShardLockedError, RawRecordError, LlamaServerError, ValueError) as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"{out}: {key.name}: {written} new trial(s) written", file=sys.stderr)
