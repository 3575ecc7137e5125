"""Judging a raw record again while it is tabulated: its task found in the suites, then today's checks (a record of
an imported study keeps the verdict it came with)."""

from __future__ import annotations

from slmbench.judging.checks import CriterionError
from slmbench.judging.scoring import Scored, as_recorded, rescore_record
from slmbench.records import schema as rec
from slmbench.records.imported import imported_from
from slmbench.records.ledger import RawRecordError
from slmbench.tasks.loader import task_index


def rejudge(record: rec.TrialRecord, source: str, line: int) -> Scored:
    """The record judged from itself with today's check of its task (``slmbench.judging.scoring``); a record of an
    imported study as it was judged where it ran.

    Raises:
        RawRecordError: The record's task is in no suite, or its check cannot judge it (``file:line``).
    """
    if imported_from(record) is not None:
        return as_recorded(record)
    task = task_index().get(record.task_id)
    if task is None:
        raise RawRecordError(
            f"{source}:{line}: trial {record.trial_id}: task {record.task_id} is not in any suite"
        )
    try:
        return rescore_record(record, task)
    except CriterionError as exc:
        raise RawRecordError(f"{source}:{line}: cannot judge trial {record.trial_id}: {exc}") from exc
