"""Agreement of a second, blind labelling pass with the data set's labels: Cohen's kappa and the disagreements.

Kappa is computed by statsmodels (``statsmodels.stats.inter_rater.cohens_kappa``; scikit-learn is not a
dependency) from the square table of the two passes' labels over the categories either pass used.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

LABEL_FIELDS = ("label", "relevant")
"""The field holding an item's label, tried in order (reranking labels a turn index, ``relevant``)."""


class LabelFileError(ValueError):
    """A labels file is malformed or the two passes do not cover the same items."""


def cohen_kappa(first: Sequence[str], second: Sequence[str]) -> float:
    """Cohen's kappa of two label sequences over the same items (``nan`` when it is undefined)."""
    from statsmodels.stats.inter_rater import cohens_kappa

    if len(first) != len(second) or not first:
        raise ValueError("need two non-empty label sequences of the same length")
    cats = sorted(set(first) | set(second))
    index = {c: i for i, c in enumerate(cats)}
    table = np.zeros((len(cats), len(cats)))
    for a, b in zip(first, second, strict=True):
        table[index[a], index[b]] += 1
    if len(cats) == 1:
        return float("nan")
    with warnings.catch_warnings():  # statsmodels divides by a zero standard error for perfect agreement
        warnings.simplefilter("ignore", RuntimeWarning)
        return float(cohens_kappa(table).kappa)


def read_labels(path: Path, label_field: str | None = None) -> dict[str, str]:
    """Item id -> label (as text) from a JSON Lines file; a bad line is an error naming file:line."""
    out: dict[str, str] = {}
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise LabelFileError(f"{path}:{number}: not JSON: {exc.msg}") from None
            name = label_field or next((f for f in LABEL_FIELDS if f in row), None)
            if "id" not in row or name is None or name not in row:
                raise LabelFileError(
                    f"{path}:{number}: field id or {label_field or '/'.join(LABEL_FIELDS)}: missing"
                )
            if row["id"] in out:
                raise LabelFileError(f"{path}:{number}: field id: duplicate {row['id']!r}")
            out[str(row["id"])] = str(row[name])
    return out


@dataclass
class Agreement:
    """The comparison of two passes."""

    n: int
    agree: int
    kappa: float
    disagreements: list[dict[str, Any]] = field(default_factory=list)


def compare(first: dict[str, str], second: dict[str, str]) -> Agreement:
    """Kappa and the disagreeing items (in the first pass's order); both passes must label the same ids."""
    missing, extra = sorted(set(first) - set(second)), sorted(set(second) - set(first))
    if missing or extra:
        raise LabelFileError(
            f"the passes label different items: {len(missing)} only in the first (e.g. {missing[:3]}), "
            f"{len(extra)} only in the second (e.g. {extra[:3]})"
        )
    ids = list(first)
    a, b = [first[i] for i in ids], [second[i] for i in ids]
    dis = [{"id": i, "first": x, "second": y} for i, x, y in zip(ids, a, b, strict=True) if x != y]
    return Agreement(n=len(ids), agree=len(ids) - len(dis), kappa=cohen_kappa(a, b), disagreements=dis)
