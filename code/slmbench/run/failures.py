"""The end of a run in which jobs failed: each failed job (a trial shard, mostly) with the one line of its log
that says why, read from Snakemake's own log of the run, so a failing model is not found only by opening logs.

The workflows call ``report_failures(log)`` from their ``onerror:`` handler (``log``: the run's Snakemake log).
With ``keep-going`` (the workflow profile sets it) the other shards ran on; this names the ones that did not.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

_BLOCK = re.compile(r"^Error in rule (\w+):\n((?:[ \t]+.*\n?)*)", flags=re.M)
_FIELD = re.compile(r"^\s+(output|log): (.+?)(?: \(check log file\(s\) for error details\))?$", flags=re.M)
_ERROR = re.compile(r"^(?:Error|[\w.]*(?:Error|Exception)|[\w.]+: error)\b")
_RAW_SHARD = re.compile(r"data/raw/[^/]+/(?P<name>[^/]+/[^/]+)\.jsonl$")


@dataclass(frozen=True)
class FailedJob:
    """A job of the run that failed: its rule, what it was to write, its log and the reason found there."""

    rule: str
    output: str
    log: str | None
    reason: str

    @property
    def name(self) -> str:
        """The shard's ``<model>/<stem>`` for a trial shard, else the rule and its output."""
        found = _RAW_SHARD.search(self.output)
        return found.group("name") if found and self.rule == "shard" else f"{self.rule} {self.output}"


def reason_in(log: Path) -> str:
    """The last line of ``log`` that reports an error (a click ``Error:`` line, an exception), else its last line;
    what to say when there is no log to read."""
    try:
        lines = [line.strip() for line in log.read_text(errors="replace").splitlines() if line.strip()]
    except OSError:
        return f"no log at {log}"
    errors = [line for line in lines if _ERROR.match(line)]
    return (errors or lines or ["(its log is empty)"])[-1]


def failed_jobs(snakemake_log: Path, root: Path | None = None) -> list[FailedJob]:
    """Every job the run's Snakemake log reports as failed, with its reason (logs read relative to ``root``,
    default the working directory)."""
    text = snakemake_log.read_text(errors="replace") if snakemake_log.is_file() else ""
    jobs: list[FailedJob] = []
    for rule, body in _BLOCK.findall(text):
        fields = dict(_FIELD.findall(body))
        log = fields.get("log", "").split(", ")[0] or None
        reason = reason_in((root or Path.cwd()) / log) if log else "(the rule keeps no log)"
        jobs.append(FailedJob(rule, fields.get("output", "").split(", ")[0], log, reason))
    return jobs


def summary(jobs: list[FailedJob]) -> str:
    """The lines that end a run with failures: how many jobs failed, then one line per job with its reason."""
    if not jobs:
        return ""
    shards = sum(job.rule == "shard" for job in jobs)
    head = f"{len(jobs)} job(s) failed"
    if shards:
        head += f", {shards} of them trial shard(s); the other jobs ran on. Rerun to resume them once fixed"
    width = max(len(job.name) for job in jobs)
    return "\n".join([f"{head}:", *(f"  {job.name:<{width}}  {job.reason}" for job in jobs)])


def report_failures(snakemake_log: str | Path | list[str], out: TextIO | None = None) -> None:
    """Print the failed jobs of the run and their reasons (nothing when none is reported); ``snakemake_log`` is
    the ``log`` an ``onerror:`` handler is given (Snakemake 9: a list of the run's log files)."""
    logs = [snakemake_log] if isinstance(snakemake_log, str | Path) else snakemake_log
    text = summary([job for path in logs for job in failed_jobs(Path(path))])
    if text:
        print(text, file=out or sys.stderr)
