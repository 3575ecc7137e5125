"""``slmbench eligibility``: run a configuration on a task, compute the baselines, requantise, compare labels."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from slmbench.vocab import ELIGIBILITY_TASKS, PROMPT_STYLES, REQUANT_TYPES, SHIPPED, EligibilityTask

if TYPE_CHECKING:
    from slmbench.backends.ollama_backend import OllamaSettings

log = logging.getLogger(__name__)
_PATH = click.Path(path_type=Path)
_EXISTING = click.Path(exists=True, dir_okay=False, path_type=Path)
_DIR = click.Path(file_okay=False, path_type=Path)

_config = click.option(
    "--config", "config_path", type=_EXISTING, default=Path("config.yaml"), show_default=True
)
_data_dir = click.option("--data-dir", type=_DIR, default=Path("data/eligibility"), show_default=True)
_bfcl_dir = click.option(
    "--bfcl-dir",
    type=_DIR,
    default=Path("data/external/bfcl_v4_multiple"),
    show_default=True,
    help="BFCL v4 multiple (tool selection's second source)",
)


@click.group("eligibility")
def eligibility() -> None:
    """The eligibility study: small models on an agent's side-tasks against non-LLM baselines."""


def _items(
    task: EligibilityTask, data_dir: Path, bfcl_dir: Path, seed: int
) -> tuple[list[Any], dict[str, Any]]:
    from slmbench.eligibility.datasets import assign_split, load_task

    items = load_task(task, data_dir, bfcl_dir)
    return items, assign_split(task, items, seed)


def open_ollama(model: str, spec: OllamaSettings, quant: str, weights: Path | None) -> tuple[Any, Any]:
    """An Ollama model (host: ``OLLAMA_HOST``, else Ollama's default) that answers, and its identity.

    A server that does not answer, or does not serve the model, is an error naming both, before any file is
    written.
    """
    from slmbench.eligibility.ollama_scorer import OllamaLabelModel, OllamaUnavailable
    from slmbench.eligibility.runner import Identity

    if quant != SHIPPED or weights is not None:
        raise click.UsageError(
            f"{model} is served by Ollama: it has no weights to pass and no requantised variants"
        )
    lm = OllamaLabelModel(spec.ollama_tag or model, num_ctx=spec.n_ctx)
    try:
        lm.check()
    except OllamaUnavailable as exc:
        lm.close()
        raise click.ClickException(f"{model}: {exc}") from exc
    identity = Identity(
        model=model,
        quant=SHIPPED,
        params_b=spec.params_b,
        instruct=spec.instruct,
        quantisation=spec.quantisation or None,
    )
    return lm, identity


def open_model(
    config_path: Path, model: str, quant: str, weights: Path | None, n_threads: int | None
) -> tuple[Any, Any]:
    """The loaded model (weights verified: pinned sha256, or a variant's sidecar) and its identity; for an
    Ollama model, the served model checked to answer (``open_ollama``)."""
    from slmbench.backends import backend_facts
    from slmbench.backends.llamacpp_backend import LlamaCppSettings
    from slmbench.backends.ollama_backend import OllamaSettings
    from slmbench.config import load_config, model_spec
    from slmbench.eligibility.layout import variant_path
    from slmbench.eligibility.models import LlamaLogitModel
    from slmbench.eligibility.quantize import read_sidecar
    from slmbench.eligibility.runner import Identity
    from slmbench.models.weights import verify

    spec = model_spec(load_config(config_path), model)
    labels = backend_facts(spec.backend).labels
    if labels == "ollama":
        assert isinstance(
            spec, OllamaSettings
        )  # what a backend scoring labels through Ollama is configured by
        return open_ollama(model, spec, quant, weights)
    if labels != "logprobs" or not isinstance(spec, LlamaCppSettings):
        raise click.UsageError(
            f"{model} cannot score labels (backend {spec.backend}); the eligibility study scores embedded GGUF"
            " files and Ollama models"
        )
    if quant == SHIPPED:
        path = verify(spec, weights)
        sha, quantisation, source = spec.weights.sha256, spec.quantisation, None
    else:
        path = weights or variant_path(model, quant)
        meta = read_sidecar(path)
        if meta.get("type") != quant or meta.get("source_sha256") != spec.weights.sha256:
            raise click.UsageError(
                f"{path} is not a {quant} variant of the shipped {model} (see its sidecar)"
            )
        sha, quantisation, source = (
            meta["output_sha256"],
            f"{quant} (requantised from {spec.quantisation})",
            spec.weights.sha256,
        )
    identity = Identity(
        model=model,
        quant=quant,
        params_b=spec.params_b,
        instruct=spec.instruct,
        weights_sha256=sha,
        quantisation=quantisation,
        source_sha256=source,
    )
    lm = LlamaLogitModel(path, n_ctx=spec.n_ctx, n_threads=n_threads, chat_format=spec.chat_format)
    return lm, identity


@eligibility.command("run")
@click.option("--model", required=True, help="a configured embedded or Ollama model")
@click.option("--task", type=click.Choice(ELIGIBILITY_TASKS), required=True)
@click.option("--prompt", type=click.Choice(PROMPT_STYLES), required=True)
@click.option("--quant", type=click.Choice((SHIPPED, *REQUANT_TYPES)), default=SHIPPED, show_default=True)
@click.option(
    "--weights", type=_EXISTING, default=None, help="GGUF to load (default: the cache or data/models)"
)
@click.option("--out", type=_PATH, required=True, help="data/raw/eligibility/<config>/<task>_<prompt>.jsonl")
@_config
@_data_dir
@_bfcl_dir
@click.option("--n-threads", type=int, default=None, help="CPU threads of an embedded model (Ollama: unused)")
@click.option("--limit", type=int, default=None, help="score at most this many new items (smoke tests)")
@click.option("--cache-check/--no-cache-check", default=True, help="score the first item uncached and cached")
def run(
    model: str,
    task: EligibilityTask,
    prompt: str,
    quant: str,
    weights: Path | None,
    out: Path,
    config_path: Path,
    data_dir: Path,
    bfcl_dir: Path,
    n_threads: int | None,
    limit: int | None,
    cache_check: bool,
) -> None:
    """Score every item of TASK with MODEL under PROMPT into OUT (resumable: recorded items are skipped)."""
    from slmbench.config import load_config
    from slmbench.eligibility.runner import run_task

    seed = load_config(config_path).split_seed()
    items, split = _items(task, data_dir, bfcl_dir, seed)
    lm, identity = open_model(config_path, model, quant, weights, n_threads)
    try:
        summary = run_task(
            lm, identity, task, prompt, items, split, seed, out, limit=limit, check_cache=cache_check
        )
    finally:
        lm.close()
    click.echo(
        f"{out}: {summary.scored} scored, {summary.skipped} already recorded, {summary.items_per_s:.2f} items/s"
    )


@eligibility.command("baselines")
@_config
@_data_dir
@_bfcl_dir
@click.option("--out", type=_PATH, required=True, help="data/processed/eligibility_baselines.json")
def baselines(config_path: Path, data_dir: Path, bfcl_dir: Path, out: Path) -> None:
    """Predict every item of every task with the non-LLM baselines (rules, keywords, BM25; for memory write also
    the acknowledgement cue), and record each item's family and how its task's rubric quotes it."""
    from slmbench.config import load_config
    from slmbench.eligibility.baselines import (
        ACK_CUE_NAME,
        ACK_CUES,
        BASELINE_NAMES,
        SCHEMA_VERSION,
        accuracy_on_test,
        predict,
    )
    from slmbench.eligibility.quoting import MIN_PART_WORDS
    from slmbench.records.atomic import dump_json, write_atomic

    seed = load_config(config_path).split_seed()
    doc: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION, "split_seed": seed, "quoting": {"min_part_words": MIN_PART_WORDS},
        "tasks": {},
    }  # fmt: skip
    for task in ELIGIBILITY_TASKS:
        items, split = _items(task, data_dir, bfcl_dir, seed)
        rubric = (data_dir / task / "rubric.md").read_text(encoding="utf-8")
        preds = predict(task, items, split, rubric)
        k, n = accuracy_on_test(preds)
        doc["tasks"][task] = {"baseline": BASELINE_NAMES[task], "items": [p.to_dict() for p in preds]}
        if any(p.cue is not None for p in preds):
            doc["tasks"][task].update(cue=ACK_CUE_NAME, cue_phrases=list(ACK_CUES))
        click.echo(f"{task}: {BASELINE_NAMES[task]} {k}/{n} correct on the test split")
    write_atomic(out, dump_json(doc))
    click.echo(f"wrote {out}")


@eligibility.command("quantize")
@click.option("--model", required=True, help="a configured embedded model (its shipped GGUF is the source)")
@click.option("--type", "qtype", type=click.Choice(REQUANT_TYPES), required=True)
@click.option(
    "--out", type=_PATH, required=True, help="data/models/<model>-<type>.gguf (sidecar: <out>.json)"
)
@_config
@click.option("--n-threads", type=int, default=None)
def quantize(model: str, qtype: str, out: Path, config_path: Path, n_threads: int | None) -> None:
    """Requantise MODEL's shipped GGUF to TYPE with llama.cpp (requantisation allowed) and record checksums."""
    from slmbench.config import load_config, model_spec
    from slmbench.eligibility.quantize import quantize as requantise
    from slmbench.models.weights import verify

    spec = model_spec(load_config(config_path), model)
    if spec.weights is None:
        raise click.UsageError(f"{model} has no embedded weights to requantise")
    source = verify(spec)
    meta = requantise(source, out, qtype, n_threads, source_sha256=spec.weights.sha256)
    click.echo(f"wrote {out} ({meta['output_bytes']} bytes, sha256 {meta['output_sha256']})")


@eligibility.command("kappa")
@click.option("--first", type=_EXISTING, required=True, help="the data set's items.jsonl (first pass)")
@click.option("--second", type=_EXISTING, required=True, help="the blind second pass: {id, label} per line")
@click.option("--field", "label_field", default=None, help="label field (default: label, else relevant)")
@click.option(
    "--disagreements", type=_PATH, default=None, help="JSON Lines of the items the passes disagree on"
)
def kappa(first: Path, second: Path, label_field: str | None, disagreements: Path | None) -> None:
    """Print Cohen's kappa of a second labelling pass against the first, and write the disagreements."""
    from slmbench.eligibility.kappa import compare, read_labels
    from slmbench.records.atomic import write_atomic

    result = compare(read_labels(first, label_field), read_labels(second, label_field))
    click.echo(
        f"kappa {result.kappa:.3f} over {result.n} items ({result.agree} agree, {result.n - result.agree} differ)"
    )
    if disagreements is not None:
        write_atomic(
            disagreements, "".join(json.dumps(d, sort_keys=True) + "\n" for d in result.disagreements)
        )
        click.echo(f"wrote {disagreements}")


@eligibility.group("blind-pass")
def blind_pass() -> None:
    """An independent labelling pass, blind by construction (``slmbench.eligibility.blind``)."""


@blind_pass.command("prepare")
@_data_dir
@click.option("--seed", type=int, required=True, help="shuffles the items and draws their codes")
@click.option(
    "--rubric",
    "rubrics",
    multiple=True,
    metavar="TASK=FILE",
    help="the rubric to show for a task (default: <data-dir>/<task>/rubric.md)",
)
def blind_prepare(data_dir: Path, seed: int, rubrics: tuple[str, ...]) -> None:
    """Write <task>/independent/: the shuffled items under codes, the rubric shown, the code-to-id key."""
    from slmbench.eligibility.blind import SHOWN_FIELDS, prepare

    given = dict(item.split("=", 1) for item in rubrics)
    unknown = sorted(set(given) - set(SHOWN_FIELDS))
    if unknown:
        raise click.UsageError(f"--rubric: unknown task(s) {unknown}; known: {list(SHOWN_FIELDS)}")
    texts = {
        task: Path(given.get(task, data_dir / task / "rubric.md")).read_text(encoding="utf-8")
        for task in SHOWN_FIELDS
    }
    for task, folder in prepare(data_dir, texts, seed).items():
        click.echo(f"{task}: wrote {folder}/items_shown.jsonl, rubric_shown.md, codes.jsonl")


@blind_pass.command("agreement")
@_data_dir
@click.option("--task", type=click.Choice(ELIGIBILITY_TASKS), required=True)
def blind_agreement(data_dir: Path, task: EligibilityTask) -> None:
    """Print the independent pass's agreement with the data set's labels, and each disagreement."""
    from slmbench.eligibility.blind import agreement

    result = agreement(data_dir, task)
    click.echo(f"{task}: label kappa {result.kappa:.3f}, {result.agree} of {result.n} agree")
    if result.category_n:
        click.echo(
            f"{task}: category kappa {result.category_kappa:.3f}, "
            f"{result.category_agree} of {result.category_n} agree"
        )
    for row in result.disagreements:
        click.echo(json.dumps(row, ensure_ascii=False, sort_keys=True))
