"""Analysis commands: ``analyze``, ``macros``, ``numbers``, ``audit`` and ``verify``."""

from __future__ import annotations

import json
import logging
import math
import sys
import tempfile
from pathlib import Path
from typing import Any

import click
import pandas as pd

from slmbench.analysis.io import run_topic
from slmbench.analysis.numbers import parse_tex, render_tex
from slmbench.analysis.selection import count_mismatches, ignored, select_trials
from slmbench.analysis.topics import INPUT_TOPICS, TOPIC_INPUTS, TOPICS, TRIAL_TOPICS
from slmbench.records.atomic import dump_json, write_atomic

logger = logging.getLogger(__name__)
_PATH = click.Path(path_type=Path)
_EXISTING = click.Path(exists=True, dir_okay=False, path_type=Path)


@click.command("analyze")
@click.argument("topic", type=click.Choice(TOPICS))
@click.option("--trials", type=_EXISTING, default=None, help="trials.parquet (every topic but eligibility)")
@click.option("--events", type=_EXISTING, default=None, help="events.parquet")
@click.option("--summary", type=_EXISTING, default=None, help="external_summary.parquet (topic external)")
@click.option("--replay", type=_EXISTING, default=None, help="strict-mode replay JSON (topic boundary)")
@click.option("--control", type=_EXISTING, default=None, help="positive-control JSON (topic capability)")
@click.option(
    "--baselines", type=_EXISTING, default=None, help="eligibility_baselines.json (topic eligibility)"
)
@click.option(
    "--record",
    "records",
    multiple=True,
    type=_EXISTING,
    help="a raw eligibility run file, data/raw/eligibility/<config>/<task>_<prompt>.jsonl (topic eligibility)",
)
@click.option(
    "--independent",
    multiple=True,
    type=_EXISTING,
    help="an independent labelling pass, <data>/<task>/independent/labels.jsonl (topic eligibility)",
)
@click.option(
    "--forced",
    multiple=True,
    type=_EXISTING,
    help="a teacher-forcing report, data/teacher_forcing/<model>/<stem>.json (topic task_consistency)",
)
@click.option("--out", type=_PATH, required=True, help="topic JSON to write")
@click.option("--bootstrap-seed", type=int, default=None, help="seed of every bootstrap resampling")
@click.option("--n-boot", type=int, default=None, help="bootstrap resamples")
@click.option(
    "--alpha", type=float, default=None, help="one minus the confidence level; false discovery rate"
)
@click.option("--margin", type=float, default=None, help="the stated margin of the eligibility rule")
@click.option(
    "--equivalence-margin",
    type=float,
    default=None,
    help="the equivalence margin of every TOST (a difference in accuracy; config equivalence_margin)",
)
@click.option(
    "--planned-runs",
    type=int,
    default=None,
    help="how many eligibility runs the study plans (the coverage phrase)",
)
def analyze(
    topic: str,
    trials: Path | None,
    events: Path | None,
    summary: Path | None,
    replay: Path | None,
    control: Path | None,
    baselines: Path | None,
    records: tuple[Path, ...],
    independent: tuple[Path, ...],
    forced: tuple[Path, ...],
    out: Path,
    bootstrap_seed: int | None,
    n_boot: int | None,
    alpha: float | None,
    margin: float | None,
    equivalence_margin: float | None,
    planned_runs: int | None,
) -> None:
    """Compute TOPIC into a JSON file of numbers and tables.

    Topics read the tidy tables (``--trials``); ``eligibility`` reads its raw run files (``--record``, once per
    file), ``--baselines`` and any ``--independent`` instead.
    """
    if topic in INPUT_TOPICS:
        if baselines is None:
            raise click.UsageError(f"topic {topic} needs --baselines (and its run files as --record)")
    elif trials is None:
        raise click.UsageError(f"topic {topic} needs --trials")
    params: dict[str, Any] = {
        "bootstrap_seed": bootstrap_seed,
        "n_boot": n_boot,
        "alpha": alpha,
        "margin": margin,
        "equivalence_margin": equivalence_margin,
        "replay": str(replay) if replay else None,
        "control": str(control) if control else None,
        "forced": [str(p) for p in forced] or None,
    }
    if topic in INPUT_TOPICS:
        params.update(
            records=[str(p) for p in records],
            baselines=str(baselines),
            independent=[str(p) for p in independent],
            planned_runs=planned_runs,
        )
    doc = run_topic(topic, trials, events, params, summary)
    write_atomic(out, dump_json(doc, compact=True))
    click.echo(f"{topic}: {len(doc['numbers'])} numbers -> {out}")


@click.command("analyze-trials")
@click.argument("topic_names", nargs=-1, type=click.Choice(TRIAL_TOPICS))
@click.option("--trials", type=_EXISTING, required=True, help="trials.parquet")
@click.option("--events", type=_EXISTING, default=None, help="events.parquet (topics that read it)")
@click.option("--summary", type=_EXISTING, default=None, help="external_summary.parquet (topic external)")
@click.option("--replay", type=_EXISTING, default=None, help="strict-mode replay JSON (topic boundary)")
@click.option("--control", type=_EXISTING, default=None, help="positive-control JSON (topic capability)")
@click.option(
    "--forced",
    multiple=True,
    type=_EXISTING,
    help="a teacher-forcing report, data/teacher_forcing/<model>/<stem>.json (topic task_consistency)",
)
@click.option("--out-dir", type=click.Path(file_okay=False, path_type=Path), required=True)
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True, help="topics at once")
@click.option("--bootstrap-seed", type=int, default=None, help="seed of every bootstrap resampling")
@click.option("--n-boot", type=int, default=None, help="bootstrap resamples")
@click.option("--alpha", type=float, default=None, help="one minus the confidence level")
@click.option(
    "--equivalence-margin",
    type=float,
    default=None,
    help="the equivalence margin of every TOST (a difference in accuracy; config equivalence_margin)",
)
def analyze_trials(
    topic_names: tuple[str, ...],
    trials: Path,
    events: Path | None,
    summary: Path | None,
    replay: Path | None,
    control: Path | None,
    forced: tuple[Path, ...],
    out_dir: Path,
    jobs: int,
    bootstrap_seed: int | None,
    n_boot: int | None,
    alpha: float | None,
    equivalence_margin: float | None,
) -> None:
    """Compute the topics of the trials table (TOPIC_NAMES, default: all of them) into OUT_DIR/<topic>.json,
    reading the tables once: each document equals ``slmbench analyze <topic>``'s with the same inputs."""
    from slmbench.analysis.batch import run_topics

    names = list(topic_names or TRIAL_TOPICS)
    files = {"replay": replay, "control": control}
    params = {
        name: {
            "bootstrap_seed": bootstrap_seed,
            "n_boot": n_boot,
            "alpha": alpha,
            "equivalence_margin": equivalence_margin,
            **{key: str(path) for key, path in files.items() if path and key in TOPIC_INPUTS[name]},
            **({"forced": [str(p) for p in forced]} if forced and "forced" in TOPIC_INPUTS[name] else {}),
        }
        for name in names
    }
    outs = {name: out_dir / f"{name}.json" for name in names}
    counts = run_topics(names, trials, events, summary, params, outs, jobs)
    for name in names:
        click.echo(f"{name}: {counts[name]} numbers -> {outs[name]}")


def _collect(topic_files: tuple[Path, ...]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    numbers: list[dict[str, Any]] = []
    topics: dict[str, Any] = {}
    for path in topic_files:
        doc = json.loads(path.read_text())
        topics[doc["topic"]] = {"file": str(path), "params": doc.get("params", {})}
        numbers += [{**n, "topic": doc["topic"]} for n in doc["numbers"]]
    return sorted(numbers, key=lambda n: n["key"]), topics


@click.command("macros")
@click.option("--manifest", type=_EXISTING, required=True, help="data/processed/manifest.json")
@click.option("--out-tex", type=_PATH, required=True, help="paper/generated/numbers.tex")
@click.option("--out-provenance", type=_PATH, required=True, help="paper/generated/provenance.json")
@click.argument("topic_json", nargs=-1, required=True, type=_EXISTING)
def macros(manifest: Path, out_tex: Path, out_provenance: Path, topic_json: tuple[Path, ...]) -> None:
    """Write the paper's number macros and their provenance from TOPIC_JSON files."""
    from slmbench.records.hashing import source_sha256  # here: the topics' commands do not need config

    numbers, topics = _collect(topic_json)
    man = json.loads(manifest.read_text())
    tex = render_tex(numbers)
    prov = {
        "numbers": numbers,
        "topics": topics,
        "raw_files": man.get("raw_files", []),
        "source_sha256": source_sha256(),  # the package as it is now (this rule reruns on any edit of it)
        "checks_version": man.get("checks_version"),
    }
    write_atomic(out_tex, tex)
    write_atomic(out_provenance, dump_json(prov))
    click.echo(f"{len(numbers)} numbers -> {out_tex}, {out_provenance}")


def _load_prov(path: Path) -> dict[str, Any]:
    if not path.exists():
        raise click.ClickException(f"{path} not found; run `slmbench macros` (or snakemake macros) first")
    data: dict[str, Any] = json.loads(path.read_text())
    return data


@click.command("numbers")
@click.option("--format", "fmt", type=click.Choice(["json", "table"]), default="table")
@click.option("--provenance", type=_PATH, default=Path("paper/generated/provenance.json"))
def numbers(fmt: str, provenance: Path) -> None:
    """List every paper number: macro key, value, text and provenance."""
    prov = _load_prov(provenance)
    if fmt == "json":
        click.echo(dump_json(prov["numbers"]), nl=False)
        return
    for n in prov["numbers"]:
        p = n["provenance"]
        click.echo(
            f"{n['key']:<50} {n['text']:<12} {p['function']}  {json.dumps(p['selection'], sort_keys=True)}"
        )


@click.command("audit")
@click.argument("key")
@click.option("--provenance", type=_PATH, default=Path("paper/generated/provenance.json"))
@click.option("--trials", type=_PATH, default=Path("data/processed/trials.parquet"))
def audit(key: str, provenance: Path, trials: Path) -> None:
    """Show how the number KEY was computed and the trials behind it."""
    prov = _load_prov(provenance)
    match = [n for n in prov["numbers"] if n["key"] == key]
    if not match:
        raise click.ClickException(f"no number with key {key!r}")
    n = match[0]
    click.echo(f"{n['key']} = {n['text']} (value {n['value']!r}, topic {n.get('topic')})")
    click.echo(dump_json(n["provenance"]), nl=False)
    if trials.exists():
        table = pd.read_parquet(trials)
        selection = n["provenance"]["selection"]
        rows = select_trials(table, selection)
        unit = n["provenance"].get("unit", "trials")
        if unit == "trials":
            click.echo(f"n counts trials; the selection picks {len(rows)} trials:")
        else:
            click.echo(f"n counts {unit}, from these {len(rows)} trials:")
        for column in ignored(table, selection):
            click.echo(f"(selection column {column!r} is not a column of the trials table: ignored)")
        cols = ["trial_id", "model", "task_id", "variant", "temperature", "outcome"]
        click.echo(rows[cols].to_string(index=False) if len(rows) else "(none)")


@click.command("verify")
@click.option("--trials", type=_EXISTING, default=Path("data/processed/trials.parquet"))
@click.option("--events", type=_PATH, default=None)
@click.option("--summary", type=_PATH, default=Path("data/processed/external_summary.parquet"))
@click.option(
    "--generated", type=click.Path(file_okay=False, path_type=Path), default=Path("paper/generated")
)
@click.option(
    "--topics", "topic_names", multiple=True, type=click.Choice(TOPICS), help="default: all recorded"
)
@click.option(
    "--figure-values",
    "figure_values",
    multiple=True,
    type=_EXISTING,
    help="A figure's values file (figures/fig_<name>.values.json); repeat for each.",
)
def verify(
    trials: Path,
    events: Path | None,
    summary: Path,
    generated: Path,
    topic_names: tuple[str, ...],
    figure_values: tuple[Path, ...],
) -> None:
    """Recompute the topics and fail if any number differs from the committed numbers.tex, if the selection of a
    recomputed number that counts trials does not pick exactly its ``.n`` trials of TRIALS (what ``slmbench audit``
    would list), or if any value a figure plotted (``--figure-values``) differs from the recomputed number of its
    key."""
    committed = parse_tex((generated / "numbers.tex").read_text())
    recorded = _load_prov(generated / "provenance.json").get("topics", {})
    names = topic_names or tuple(t for t in TOPICS if t in recorded) or TOPICS
    fresh: dict[str, str] = {}
    fresh_values: dict[str, Any] = {}
    recomputed_all: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            params = dict(recorded.get(name, {}).get("params", {}))
            if "seed" in params:  # recorded before the bootstrap seed had a name of its own
                params.setdefault("bootstrap_seed", params.pop("seed"))
            params.pop("summary", None)
            params.pop("input_sha256", None)
            ev = events if events is not None and events.exists() else None
            doc = run_topic(
                name,
                None if name in INPUT_TOPICS else trials,
                ev,
                params,
                summary if name == "external" and summary.exists() else None,
            )
            write_atomic(Path(tmp) / f"{name}.json", dump_json(doc))
            recomputed = json.loads((Path(tmp) / f"{name}.json").read_text())["numbers"]
            fresh.update({n["key"]: n["text"] for n in recomputed})
            fresh_values.update({n["key"]: n["value"] for n in recomputed})
            if name not in INPUT_TOPICS:
                recomputed_all += recomputed
    prefixes = {k.split(".")[0] for k in fresh}
    relevant = {k: v for k, v in committed.items() if k.split(".")[0] in prefixes}
    diffs = [
        f"changed {k}: committed {relevant[k]!r}, recomputed {fresh[k]!r}"
        for k in sorted(fresh)
        if k in relevant and relevant[k] != fresh[k]
    ]
    diffs += [f"missing from numbers.tex: {k}" for k in sorted(set(fresh) - set(relevant))]
    diffs += [f"no longer computed: {k}" for k in sorted(set(relevant) - set(fresh))]
    diffs += count_mismatches(recomputed_all, pd.read_parquet(trials))
    n_plotted = 0
    for path in figure_values:
        plotted: dict[str, Any] = json.loads(path.read_text())
        n_plotted += len(plotted)
        diffs += figure_diffs(path.name, plotted, fresh_values)
    if diffs:
        click.echo("\n".join(diffs))
        click.echo(f"verify: {len(diffs)} differences", err=True)
        sys.exit(1)
    figures = f", {n_plotted} plotted values of {len(figure_values)} figures" if figure_values else ""
    click.echo(f"verify: {len(fresh)} numbers match{figures}")


def figure_diffs(name: str, plotted: dict[str, Any], numbers: dict[str, Any]) -> list[str]:
    """Each plotted value whose key is not a recomputed number, or whose value differs from it (floats within
    1e-9)."""
    out: list[str] = []
    for key in sorted(plotted):
        if key not in numbers:
            out.append(f"{name}: plotted {key} is not a number")
            continue
        drawn, value = plotted[key], numbers[key]
        numeric = all(isinstance(v, int | float) and not isinstance(v, bool) for v in (drawn, value))
        same = math.isclose(drawn, value, rel_tol=1e-9, abs_tol=1e-9) if numeric else drawn == value
        if not same:
            out.append(f"{name}: changed {key}: plotted {drawn!r}, recomputed {value!r}")
    return out
