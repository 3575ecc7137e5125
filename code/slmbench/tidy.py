"""``slmbench tidy``: raw shards (and imported external trials) → trials.parquet, events.parquet, manifest.json.

Each shard is validated and judged on its own (``shard_tables``: nothing in it depends on the config), in
parallel and kept per shard when a cache folder is given (``slmbench.records.shard_cache``); the merge then adds what
the config decides (a configured model's size and kind, which trials ran in the primary condition), checks
that no trial id appears twice, and sorts. ``events.parquet`` holds the tool calls and refusals of every trial
(what the analysis counts); every other event stays in the raw record.

A corrupt or schema-invalid raw line stops the build with ``file:line`` and the reason.
"""

from __future__ import annotations

import hashlib
import json
from concurrent.futures import ThreadPoolExecutor
from operator import itemgetter
from pathlib import Path
from typing import Any

import click
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from slmbench.config import StudyConfig, load_config
from slmbench.harness.served import trial_calls
from slmbench.judging.checks import CriterionError
from slmbench.judging.scoring import CHECKS_VERSION, rescore_record
from slmbench.records import schema as rec
from slmbench.records.hashing import sha256_file, source_sha256
from slmbench.records.ledger import RawRecordError, iter_records
from slmbench.records.shard_cache import Frames, ShardCache, cache_options, concat, concat_arrow, map_shards
from slmbench.run import roles
from slmbench.tasks.loader import task_index
from slmbench.vocab import DIMENSIONS, ELIGIBILITY_RAW

TRIAL_COLUMNS = [
    "trial_id",
    "study",
    "suite",
    "task_id",
    "group",
    "dimension",
    "variant",
    "model",
    "params_b",
    "is_base",
    "temperature",
    "seed",
    "repeat",
    "scaffold",
    "parser_mode",
    "outcome",
    "passed",
    "partial",
    "failure_class",
    "failure_class_clock_first",
    "refused",
    "turns",
    "wall_s",
    "prompt_tokens",
    "completion_tokens",
    "n_tool_calls",
    "n_refusals",
    "peak_rss_mb",
    "answer",
    "source_file",
    "source_line",
    "derived_from_rate",
]
SERVED_COLUMNS = ["server", "server_calls", "raw_calls", "calls_changed", "calls_dropped", "calls_added"]
"""A serving-comparison trial's server (missing for every other trial) and its calls as the server returned them
against our reading of its raw text (``slmbench.harness.served``)."""
# Columns only our own records have (a published study's table leaves them empty).
RECORD_COLUMNS = [
    "n_ctx",
    "stop_reason",
    "protocol",
    "max_turns",
    "max_tokens",
    "budget_s",
    "answer_channel",
    "closing_answer",
    "n_stuck",
    "harm",
    "recorded_outcome",
    "rescored",
    "state_source",
    "check_sha256",
    "criteria",
    "transcript_sha256",
    "cpu",
    "rerun",
    "first_request_sha256",
    "first_reply_sha256",
    *SERVED_COLUMNS,
]
LARGE_TEXT_COLUMNS = ("answer", "transcript_sha256", "first_request_sha256", "first_reply_sha256")
"""Text of a value per trial that few topics read: a topic reads them only when its module names them in
``LARGE_TEXT_READ`` (at a million trials they are a hundred megabytes that every row filter would copy)."""
AUDIT_COLUMNS = (
    "criteria",
    "source_file",
    "source_line",
    "check_sha256",
    "state_source",
    "recorded_outcome",
    "rescored",
    "derived_from_rate",
    "seed",
    "partial",
    "answer_channel",
    "n_stuck",
    "turns",
)
"""Columns kept to audit a trial (where its record is, how it was judged); no statistic reads them, so the
analysis topics leave them unread."""
DICTIONARY_COLUMNS = ("criteria", "source_file", "check_sha256", "state_source", "answer_channel")
"""Audit text of few distinct values per shard (a task's verdicts on its criteria, the shard's path), kept
dictionary-encoded from the shard on: the merge, its sort and the Parquet writer then move integer codes (at a
million trials ``criteria`` alone was 476 MB of the 1.1 GB table, copied twice by the merge)."""
DICTIONARY = pa.dictionary(pa.int32(), pa.string())
CATEGORY_COLUMNS = ("study", "suite", "group", "dimension", "variant", "model", "scaffold", "parser_mode",
                    "outcome", "failure_class", "failure_class_clock_first", "stop_reason", "protocol",
                    "task_id", "cpu", "rerun", "server")  # fmt: skip
"""Text columns of few distinct values, which the topics read as pandas categories: each copy of the rows
then copies small integer codes instead of the text."""
_DIMENSIONS = set(DIMENSIONS)
EVENT_COLUMNS = [
    "trial_id",
    "seq",
    "type",
    "turn",
    "name",
    "code",
    "surface",
    "parser_mode",
    "repairs",
    "arguments",
]
EVENT_TYPES = (rec.ToolCallEvent, rec.RefusalEvent)
"""The events ``events.parquet`` keeps: tool calls and refusals."""


def trial_row(record: rec.TrialRecord, source: str, line: int) -> dict[str, Any]:
    """One tidy row for one raw trial record, judged again from the record with today's checks. A model's
    size and kind come from the record's fingerprint; the merge replaces them by the config's."""
    end = next(e for e in reversed(record.events) if isinstance(e, rec.EndEvent))
    answer_event = next((e for e in record.events if isinstance(e, rec.FinalAnswerEvent)), None)
    task = task_index().get(record.task_id)
    if task is None:
        raise RawRecordError(
            f"{source}:{line}: trial {record.trial_id}: task {record.task_id} is not in any suite"
        )
    try:
        scored = rescore_record(record, task)
    except CriterionError as exc:
        raise RawRecordError(f"{source}:{line}: cannot judge trial {record.trial_id}: {exc}") from exc
    responses = [e for e in record.events if isinstance(e, rec.ModelResponse)]
    settings = record.provenance.get("settings", {})
    # Null-control reruns are their own suite. Records written before the runner stored the label carry
    # suite "capability"; their shard name (provenance) and trial id identify them unambiguously.
    suite = "null_control" if record.provenance.get("shard") == "null_control" else record.suite
    return {
        "trial_id": record.trial_id,
        "study": record.study,
        "suite": suite,
        "task_id": record.task_id,
        "group": record.group,
        "dimension": record.group if record.group in _DIMENSIONS and record.suite == "reliability" else None,
        "variant": record.variant,
        "model": record.model,
        "params_b": record.fingerprint.get("params_b"),
        "is_base": not bool(record.fingerprint.get("instruct", True)),
        "temperature": record.temperature,
        "seed": record.seed,
        "repeat": record.repeat,
        "scaffold": record.scaffold,
        "parser_mode": record.parser_mode,
        "outcome": scored.outcome,
        "passed": scored.outcome == "success",
        "partial": scored.check.partial if scored.check else None,
        "failure_class": scored.failure_class,
        "failure_class_clock_first": scored.failure_class_clock_first,
        "refused": scored.refused,
        "turns": end.turns,
        "wall_s": end.wall_s,
        "prompt_tokens": sum(e.prompt_tokens for e in responses),
        "completion_tokens": sum(e.completion_tokens for e in responses),
        "n_tool_calls": sum(isinstance(e, rec.ToolCallEvent) for e in record.events),
        "n_refusals": sum(isinstance(e, rec.RefusalEvent) for e in record.events),
        "peak_rss_mb": end.peak_rss_mb,
        "answer": answer_event.text if answer_event else None,
        "source_file": source,
        "source_line": line,
        "derived_from_rate": False,
        "n_ctx": record.fingerprint.get("n_ctx"),
        "stop_reason": end.stop_reason,
        "protocol": record.protocol,
        "max_turns": settings.get("max_turns"),
        "max_tokens": settings.get("max_tokens"),
        "budget_s": settings.get("budget_s"),
        "answer_channel": answer_event.channel if answer_event else None,
        "closing_answer": bool(answer_event and answer_event.channel == "closing_turn"),
        "n_stuck": sum(isinstance(e, rec.StuckEvent) for e in record.events),
        "harm": scored.harm,
        "recorded_outcome": record.outcome,
        "rescored": scored.rescored,
        "state_source": scored.state_source,
        "check_sha256": scored.check_sha256,
        "criteria": json.dumps(scored.check.criteria, sort_keys=True, default=str) if scored.check else None,
        "transcript_sha256": transcript_sha256(responses),
        "cpu": (record.fingerprint.get("machine") or {}).get("cpu"),
        "rerun": settings.get("rerun"),
        **first_exchange(record),
        **served_calls(record, list(task.tools)),
    }


def served_calls(record: rec.TrialRecord, tools: list[str]) -> dict[str, Any]:
    """The server of a serving-comparison trial and its calls against our reading of the server's raw text
    (``harness.served.trial_calls``); all missing for a trial run on its model's own backend."""
    server = (record.provenance.get("settings", {}).get("serving") or {}).get("server")
    if server is None:
        return dict.fromkeys(SERVED_COLUMNS)
    return {"server": server, **trial_calls(record, tools)}


def first_exchange(record: rec.TrialRecord) -> dict[str, str | None]:
    """Hashes of the trial's first request (prompt and sampling options but the seed, which greedy decoding does
    not read) and of the model's first reply: trials with the same first request are a test of whether the
    same input gave the same output."""
    request = next((e for e in record.events if isinstance(e, rec.ModelRequest)), None)
    reply = next((e for e in record.events if isinstance(e, rec.ModelResponse)), None)
    options = {k: v for k, v in (request.options if request else {}).items() if k != "seed"}
    wanted = json.dumps([request.prompt_sha256, options], sort_keys=True, default=str) if request else None
    return {
        "first_request_sha256": hashlib.sha256(wanted.encode()).hexdigest()[:16] if wanted else None,
        "first_reply_sha256": transcript_sha256([reply]) if reply else None,
    }


def transcript_sha256(responses: list[rec.ModelResponse]) -> str:
    """Hash of everything the model wrote in a trial, in order: equal hashes mean identical transcripts."""
    digest = hashlib.sha256()
    for response in responses:
        digest.update(json.dumps([response.raw_text, response.native_tool_calls], sort_keys=True).encode())
    return digest.hexdigest()[:16]


def event_rows(record: rec.TrialRecord) -> list[dict[str, Any]]:
    """One tidy row per tool call or refusal of a trial (``seq``: its place among all the record's events)."""
    rows = []
    for seq, event in enumerate(record.events):
        if not isinstance(event, EVENT_TYPES):
            continue
        rows.append(
            {
                "trial_id": record.trial_id,
                "seq": seq,
                "type": event.type,
                "turn": event.turn,
                "name": event.name,
                "code": getattr(event, "code", None),
                "surface": getattr(event, "surface", None),
                "parser_mode": getattr(event, "parser_mode", None),
                "repairs": json.dumps(event.repairs),
                "arguments": json.dumps(event.arguments, sort_keys=True, default=str),
            }
        )
    return rows


def shard_tables(path: Path, source: str) -> Frames:
    """One shard's trial rows, event rows and its manifest entry (``meta``: path, sha256, records).

    Raises:
        RawRecordError: A bad line, a trial twice in the shard, or a trial its checks cannot judge.
    """
    columns = [*TRIAL_COLUMNS, *RECORD_COLUMNS]
    trial_values, event_values = itemgetter(*columns), itemgetter(*EVENT_COLUMNS)
    trials: list[tuple[Any, ...]] = []
    events: list[tuple[Any, ...]] = []
    for line, record in iter_records(path):
        trials.append(trial_values(trial_row(record, source, line)))
        events.extend(map(event_values, event_rows(record)))
    events.sort(key=itemgetter(0, 1))  # by trial id and place: whatever order the trials finished in
    meta = pd.DataFrame([{"path": source, "sha256": sha256_file(path), "n_records": len(trials)}])
    return {
        "trials": _dictionary_encoded(
            pa.Table.from_pandas(pd.DataFrame(trials, columns=columns), preserve_index=False)
        ),
        "events": pd.DataFrame(events, columns=EVENT_COLUMNS),
        "meta": meta,
    }


def _dictionary_encoded(table: pa.Table) -> pa.Table:
    """``table`` with its ``DICTIONARY_COLUMNS`` as ``DICTIONARY`` (one type in every shard, also where a shard's
    column is all missing)."""
    for name in DICTIONARY_COLUMNS:
        at = table.schema.get_field_index(name)
        table = table.set_column(at, name, table.column(name).cast(DICTIONARY))
    return table


def apply_config(frame: pd.DataFrame, config: StudyConfig) -> pd.DataFrame:
    """A configured model's size and kind (base or instruction-tuned) from the config; each trial's role in the
    plan (``primary``, ``comparison``: ``slmbench.run.roles``)."""
    sizes = {m: spec.params_b for m, spec in config.models.items()}
    bases = {m: not spec.instruct for m, spec in config.models.items()}
    known = frame["model"].isin(list(sizes))
    frame["params_b"] = frame["model"].map(sizes).astype(float).where(known, frame["params_b"]).astype(float)
    frame["is_base"] = frame["model"].map(bases).astype(object).where(known, frame["is_base"]).astype(bool)
    frame["primary"] = roles.primary(frame, config)
    frame["comparison"] = roles.comparison(frame, config)
    return frame


def _no_duplicates(table: pa.Table) -> None:
    """Raises RawRecordError naming both places of a trial id that two shards hold (counted in Arrow; the
    places are looked up only when there is one)."""
    if pc.count_distinct(table.column("trial_id"), mode="all").as_py() == table.num_rows:
        return
    frame = table.select(["trial_id", "source_file", "source_line"]).to_pandas()
    twice = frame["trial_id"].duplicated(keep=False)
    if twice.any():
        rows = frame.loc[twice, ["trial_id", "source_file", "source_line"]].sort_values(
            ["trial_id", "source_file"]
        )
        first, second = rows.iloc[0], rows.iloc[1]
        raise RawRecordError(
            f"{second['source_file']}:{second['source_line']}: trial {second['trial_id']} also in "
            f"{first['source_file']}:{first['source_line']}"
        )


class NoTrialsError(ValueError):
    """No trial is recorded: there is nothing to tabulate."""


def raw_shards(raw_dir: Path) -> list[Path]:
    """Every trial shard under the raw directory, sorted (the eligibility study's runs, in their own folder and
    format, are not trial records)."""
    return sorted(p for p in raw_dir.rglob("*.jsonl") if p.relative_to(raw_dir).parts[0] != ELIGIBILITY_RAW)


SORT_KEYS = [
    "study",
    "model",
    "suite",
    "task_id",
    "variant",
    "temperature",
    "scaffold",
    "parser_mode",
    "repeat",
]
"""The order of the trials table."""


def merged_table(ours: pa.Table, external: pd.DataFrame | None, jobs: int = 1) -> pa.Table:
    """Our trials and a published study's (``external``, given) as one Arrow table, sorted by ``SORT_KEYS``.

    Each column keeps our type (text as ``string``); the published study's values are cast to it, and where
    they cannot be (or our column is all missing) the column takes the type Arrow infers for both sides' values
    together. Joined in Arrow: at a million trials, one data frame of both took gigabytes. The columns are put
    in order in ``jobs`` threads (Arrow works outside Python's lock; one column at a time took ten seconds at
    a million trials).
    """
    columns = [_merged_column(ours.column(name), external, name) for name in ours.column_names]
    order = sort_order(pa.table([columns[ours.column_names.index(k)] for k in SORT_KEYS], names=SORT_KEYS))
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        ordered = list(pool.map(lambda column: _one_chunk(column).take(order), columns))
    return pa.table(ordered, names=ours.column_names)


def sort_order(keys: pa.Table) -> pa.Array:
    """The row order of a stable sort by every column of ``keys`` ascending, missing values last (as pandas'
    ``sort_values(kind="stable")`` orders them: a float NaN counts as missing). The keys are made one chunk
    first: Arrow's sort of a table of one chunk per shard took four times as long at a million trials."""
    keys = keys.combine_chunks()
    plain = [
        pc.if_else(pc.is_nan(column), pa.scalar(None, column.type), column)
        if pa.types.is_floating(column.type)
        else column
        for column in keys.columns
    ]
    return pc.sort_indices(
        pa.table(plain, names=keys.column_names),
        sort_keys=[(name, "ascending", "at_end") for name in keys.column_names],
    )


def _one_chunk(column: pa.ChunkedArray) -> pa.ChunkedArray | pa.Array:
    """The column as one array when it fits 32-bit offsets (a take across the shards' many chunks resolves
    each index's chunk, seconds at a million trials)."""
    return column.combine_chunks() if column.nbytes < 2**31 - 1 else column


def _merged_column(mine: pa.ChunkedArray, external: pd.DataFrame | None, name: str) -> pa.ChunkedArray:
    """Column ``name`` of our trials with the published study's under it (see ``merged_table``)."""
    target = pa.string() if pa.types.is_large_string(mine.type) else mine.type
    if name == "primary":
        target = pa.bool_()
    if external is None:
        return mine.cast(target)
    theirs = external[name] if name in external else pd.Series(None, index=external.index, dtype=object)
    theirs_array = pa.Array.from_pandas(theirs.astype(object))
    if not pa.types.is_null(target):
        try:
            return pa.chunked_array([*mine.cast(target).chunks, theirs_array.cast(target)], type=target)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            pass
    both = pd.concat([mine.to_pandas().astype(object), theirs.astype(object)], ignore_index=True)
    return pa.chunked_array([pa.Array.from_pandas(both)])


CONFIG_INPUTS = ["params_b", "is_base", *roles.INPUT_COLUMNS]
"""The columns ``apply_config`` reads."""


def _with_config(ours: pa.Table, config: StudyConfig) -> pa.Table:
    """``apply_config`` on the columns it reads, written back into the Arrow table (the roles appended). The
    model names go in as a category: each lookup then costs one per model, not one per trial."""
    inputs = ours.select(CONFIG_INPUTS)
    at = inputs.schema.get_field_index("model")
    inputs = inputs.set_column(at, "model", pc.dictionary_encode(inputs.column("model")))
    decided = apply_config(inputs.to_pandas(), config)
    for name in ("params_b", "is_base"):
        ours = ours.set_column(ours.schema.get_field_index(name), name, pa.Array.from_pandas(decided[name]))
    ours = ours.append_column("primary", pa.Array.from_pandas(decided["primary"]))
    return ours.append_column("comparison", pa.Array.from_pandas(decided["comparison"], type=pa.string()))


def tidy_tables(
    shards: list[Path],
    config: StudyConfig,
    external: Path | None,
    root: Path,
    cache_dir: Path | None = None,
    jobs: int = 1,
) -> tuple[pa.Table, pd.DataFrame, dict[str, Any]]:
    """The trials table (Arrow: ``.to_pandas()`` reads as ``trials.parquet`` does), the event table and the
    manifest of raw inputs (shards derived in up to ``jobs`` processes, and kept under ``cache_dir`` when
    given)."""
    named = [(p, str(p.relative_to(root)) if p.is_relative_to(root) else str(p)) for p in shards]
    parts = map_shards(
        named, shard_tables, ("trials", "events", "meta"), ShardCache.at(cache_dir, "tidy"), jobs
    )
    ours = concat_arrow(parts, "trials", [*TRIAL_COLUMNS, *RECORD_COLUMNS])
    event_frame = concat(parts, "events", EVENT_COLUMNS)
    manifest_files = [row for p in parts for row in p["meta"].to_pylist()]
    del parts
    if ours.num_rows == 0:
        raise NoTrialsError(f"no trials are recorded ({len(shards)} shard files)")
    _no_duplicates(ours)
    ours = _with_config(ours, config)
    ext = None
    if external is not None:
        ext = pd.read_parquet(external)
        missing = set(TRIAL_COLUMNS) - set(ext.columns)
        if missing:
            raise ValueError(f"{external}: missing columns {sorted(missing)}")
        manifest_files.append({"path": str(external), "sha256": sha256_file(external), "n_records": len(ext)})
        ext = ext[TRIAL_COLUMNS].assign(primary=True)  # a published study has one condition
    table = merged_table(ours, ext, jobs)
    manifest = {
        "raw_files": manifest_files,
        "source_sha256": source_sha256(),
        "checks_version": CHECKS_VERSION,
    }
    return table, event_frame, manifest


def no_trials_message(raw_dir: Path, config_path: str) -> str:
    """The one-line error of a study with no recorded trials: what is missing and which command records it."""
    return (
        f"no trials are recorded under {raw_dir} for the models of {config_path}: record them first with "
        "`snakemake trials --cores 2` (or one shard with `slmbench run`), then build the tables or the paper"
    )


ROW_GROUP = 131_072
"""Rows per Parquet row group of the tidy tables: every topic reads them, and a reader decodes row groups in
parallel (one group of a million rows decoded on one core only)."""


def _write_parquet(frame: pd.DataFrame | pa.Table, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.parquet")
    table = frame if isinstance(frame, pa.Table) else pa.Table.from_pandas(frame, preserve_index=False)
    pq.write_table(table, tmp, row_group_size=ROW_GROUP)
    tmp.replace(path)


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
    """Validate every raw shard and write the tidy tables."""
    config = load_config(config_path)
    try:
        trials, events, manifest = tidy_tables(
            raw_shards(raw_dir), config, external, Path.cwd(), cache_dir=cache_dir, jobs=jobs
        )
    except NoTrialsError:
        raise click.ClickException(no_trials_message(raw_dir, config_path)) from None
    except RawRecordError as exc:
        raise click.ClickException(str(exc)) from None
    _write_parquet(trials, out_trials)
    _write_parquet(events, out_events)
    tmp = out_manifest.with_suffix(".tmp")
    tmp.write_text(json.dumps(manifest, indent=1, sort_keys=True))
    tmp.replace(out_manifest)
    click.echo(f"{out_trials}: {trials.num_rows} trials; {out_events}: {len(events)} events")
