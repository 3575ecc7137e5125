"""Records of an imported study: trials another tool ran and judged, turned into our record format.

Their provenance holds ``imported``: the format they came from, the file and the item there, and what the tool
posed. Tidy keeps the verdict such a record was written with (our checks know only our tasks), and the site shows
what the tool posed instead of one of our tasks.
"""

from __future__ import annotations

from typing import Any

from slmbench.records.schema import TrialRecord

IMPORTED = "imported"
"""The provenance key of an imported record."""


def imported_from(record: TrialRecord) -> dict[str, Any] | None:
    """Where an imported record came from (``format``, ``file``, ``input``...), or None for our own trials."""
    source = record.provenance.get(IMPORTED)
    return source if isinstance(source, dict) else None
