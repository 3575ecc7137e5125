"""Reading Inspect eval logs for the importer: the log itself (a bad file is one line naming it) and its scores."""

from __future__ import annotations

import math
from pathlib import Path

from inspect_ai.log import EvalLog, EvalSample, read_eval_log
from inspect_ai.scorer import Score, value_to_float

from slmbench.formats.errors import FormatError

_TO_FLOAT = value_to_float()


def read_log(path: Path) -> EvalLog:
    """The Inspect eval log at ``path`` with its samples (attachments resolved).

    Raises:
        FormatError: The file is missing, is not an Inspect log, is corrupt or holds no samples.
    """
    if not path.is_file():
        raise FormatError(f"{path}: no such file")
    try:
        log = read_eval_log(str(path), resolve_attachments=True)
    except Exception as exc:  # Inspect raises whatever its readers meet: zip, JSON, pydantic errors
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise FormatError(
            f"{path}: not a readable Inspect eval log ({type(exc).__name__}: {reason[:200]})"
        ) from None
    if not log.samples:
        raise FormatError(
            f"{path}: an Inspect eval log without samples (status {log.status}): nothing to import"
        )
    return log


def scorer_name(log: EvalLog, path: Path, wanted: str | None) -> str:
    """The scorer whose scores are the outcomes: ``wanted``, else the log's first.

    Raises:
        FormatError: The log has no scorer, or not the one wanted.
    """
    names = [s.name for s in (log.results.scores if log.results else [])]
    if not names:
        names = list(dict.fromkeys(k for s in log.samples or [] for k in (s.scores or {})))
    if wanted is not None and wanted not in names:
        raise FormatError(f"{path}: no scorer {wanted!r} in the log (it has {', '.join(names) or 'none'})")
    if not names:
        raise FormatError(f"{path}: the log's samples are not scored: no outcome to import")
    return wanted or names[0]


def sample_score(sample: EvalSample, scorer: str) -> Score | None:
    """The sample's score from ``scorer``, or None when it has none."""
    return (sample.scores or {}).get(scorer)


def credit(score: Score) -> float | None:
    """The score's value as credit between 0 and 1 (Inspect's reading: ``C`` 1, ``P`` 0.5, ``I`` 0, numbers as
    they are), or None when it is no single number (a list or a mapping of values)."""
    if not isinstance(score.value, str | int | float | bool):
        return None
    try:
        value = _TO_FLOAT(score.value)
    except (TypeError, ValueError):
        return None
    if not math.isfinite(value):
        return None
    return min(1.0, max(0.0, value))
