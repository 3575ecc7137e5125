"""Build the audit site: raw shards + the tidy trials table + the paper's provenance -> a static folder.

Layout of the output::

    index.html              the trial table; index.html#trial=<id> shows one transcript
    data/index.js           the trial index (one compact row per trial, for filtering and sorting)
    trials/<shard>.js       every transcript of one raw shard, loaded when one of its trials is opened
    search/<shard>.js       the lower-cased message text of one shard, loaded when a search needs it
    numbers/index.html      every number of the paper
    numbers/<key>.html      one number: value, computation, selection and its trials
    assets/site.js, .css    the viewer (no library, no network)

The folder is written beside ``out`` and renamed into place, so a failed build leaves the old site whole.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import time
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, cast

import pandas as pd

from slmbench.records.hashing import sha256_file
from slmbench.site.encode import js_call, shard_ids
from slmbench.site.index import trial_index
from slmbench.site.numbers import check_keys, number_trials
from slmbench.site.pages import number_page, numbers_page, trials_page
from slmbench.site.transcripts import read_shard
from slmbench.tidy import raw_shards

log = logging.getLogger(__name__)
ASSETS = ("site.js", "site.css")


class SiteInputError(ValueError):
    """The inputs disagree (a raw record missing from the trials table) or a number cannot name a page."""


@dataclass(frozen=True)
class SiteSummary:
    """What a build wrote."""

    out: Path
    n_trials: int
    n_transcripts: int
    n_shards: int
    n_numbers: int
    index_bytes: int
    total_bytes: int
    seconds: float


def _relative(path: Path, root: Path) -> str:
    path = path.resolve()
    return str(path.relative_to(root)) if path.is_relative_to(root) else str(path)


def _write(path: Path, text: str) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = text.encode("utf-8")
    path.write_bytes(data)
    return len(data)


def _rows_by_id(trials: pd.DataFrame) -> dict[str, dict[str, Any]]:
    records = cast(list[dict[str, Any]], trials.to_dict("records"))
    return {str(r["trial_id"]): r for r in records}


def _write_shards(
    raw_dir: Path, root: Path, trials: pd.DataFrame, prov_hashes: dict[str, str], tmp: Path
) -> tuple[list[str | None], list[dict[str, Any]], int]:
    rows = _rows_by_id(trials)
    position = {trial_id: i for i, trial_id in enumerate(trials["trial_id"].astype(str))}
    shard_of: list[str | None] = [None] * len(trials)
    tabulated = set(trials["source_file"].astype(str))  # the study's shards: those its trials table read
    paths = [p for p in raw_shards(raw_dir) if {str(p), _relative(p, root)} & tabulated]
    sources = [_relative(p, root) for p in paths]
    ids = shard_ids(sources)
    shards: list[dict[str, Any]] = []
    n_transcripts = 0
    for path, source in zip(paths, sources, strict=True):
        try:
            shard = read_shard(path, source, rows)
        except KeyError as exc:
            raise SiteInputError(exc.args[0]) from None
        if not shard.transcripts:
            continue
        sid = ids[source]
        _write(tmp / "trials" / f"{sid}.js", js_call("SLM.chunk", sid, shard.transcripts))
        _write(tmp / "search" / f"{sid}.js", js_call("SLM.searchChunk", sid, shard.search))
        for trial_id in shard.transcripts:
            shard_of[position[trial_id]] = sid
        n_transcripts += len(shard.transcripts)
        shards.append(
            {
                "id": sid,
                "path": source,
                "n_records": len(shard.transcripts),
                "sha256": sha256_file(path),
                "provenance_sha256": prov_hashes.get(source),
            }
        )
        log.debug("%s: %d transcripts -> trials/%s.js", source, len(shard.transcripts), sid)
    return shard_of, shards, n_transcripts


def _swap_into_place(tmp: Path, out: Path) -> None:
    old = out.parent / f".{out.name}.old-{os.getpid()}"
    if out.exists():
        out.rename(old)
    tmp.rename(out)
    if old.exists():
        shutil.rmtree(old)


def build_site(
    raw_dir: Path, trials_path: Path, provenance_path: Path, out: Path, root: Path | None = None
) -> SiteSummary:
    """Write the audit site into ``out`` (replacing it whole); paths in pages are relative to ``root``.

    Raises:
        SiteInputError: a raw record has no row in the trials table, or a number key is not a safe file name.
    """
    start = time.perf_counter()
    root = (root or Path.cwd()).resolve()
    trials = pd.read_parquet(trials_path).reset_index(drop=True)
    prov = json.loads(provenance_path.read_text())
    numbers: list[dict[str, Any]] = prov.get("numbers", [])
    try:
        check_keys(numbers)
    except ValueError as exc:
        raise SiteInputError(f"{provenance_path}: {exc}") from None
    prov_hashes = {f["path"]: f["sha256"] for f in prov.get("raw_files", []) if "path" in f and "sha256" in f}
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.parent / f".{out.name}.partial-{os.getpid()}"
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir()
    try:
        shard_of, shards, n_transcripts = _write_shards(raw_dir, root, trials, prov_hashes, tmp)
        index = trial_index(trials, shard_of, shards)
        index_bytes = _write(tmp / "data" / "index.js", js_call("SLM.index", index.doc))
        counts: dict[str, int] = {}
        topics = prov.get("topics", {})
        hashes = {s["path"]: s["sha256"] for s in shards}
        for number in numbers:
            chosen = number_trials(trials, number)
            counts[str(number["key"])] = len(chosen.positions)
            topic = topics.get(number.get("topic", ""), {})
            _write(tmp / "numbers" / f"{number['key']}.html", number_page(number, chosen, topic, hashes))
        _write(tmp / "numbers" / "index.html", numbers_page(numbers, counts))
        meta = {
            "n_trials": len(trials),
            "n_transcripts": n_transcripts,
            "n_numbers": len(numbers),
            **{k: prov.get(k) for k in ("source_sha256", "checks_version", "git_commit")},
        }
        _write(tmp / "index.html", trials_page(meta, shards))
        for name in ASSETS:
            _write(
                tmp / "assets" / name, resources.files("slmbench.site").joinpath("assets", name).read_text()
            )
        total = sum(p.stat().st_size for p in tmp.rglob("*") if p.is_file())
        _swap_into_place(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    missing = int(sum(s is None for s in shard_of))
    if missing:
        log.info("%d trials have no raw record here (imported studies): listed without a transcript", missing)
    return SiteSummary(
        out=out,
        n_trials=len(trials),
        n_transcripts=n_transcripts,
        n_shards=len(shards),
        n_numbers=len(numbers),
        index_bytes=index_bytes,
        total_bytes=total,
        seconds=time.perf_counter() - start,
    )
