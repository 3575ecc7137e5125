"""One file run by two models of the study: in-process by one, behind a server by the other (their records name
one sha256; ``backends.identity.served_twins`` pairs them), compared task by task like the serving comparison
(``analysis.paired``: exact McNemar per pair of models and pooled). Keys ``twin.*``, per pair
``twin.model.<in-process model>.*``; they exist only where such a pair ran."""

from __future__ import annotations

from typing import Any

import pandas as pd

from slmbench.analysis import numbers as nb
from slmbench.analysis.numbers import Number, TopicResult
from slmbench.analysis.paired import Sides, cells, comparison
from slmbench.analysis.selection import Selection
from slmbench.backends import backend_facts, served_twins
from slmbench.vocab import STUDY_ID, SUITES

PREFIX = "twin"
IN_PROCESS = "in-process"
_COLUMNS = ("backend", "file_sha256", "served_by")


def _single(values: pd.Series) -> str | None:
    found = values.dropna().astype(str).unique()
    return str(found[0]) if len(found) == 1 else None


def twin_models(primary: pd.DataFrame) -> tuple[tuple[str, str], ...]:
    """(in-process model, served model) of each file both ran, from their primary trials' records."""
    if primary.empty or any(c not in primary for c in _COLUMNS):
        return ()
    models = []
    for model, part in primary.groupby(primary["model"].astype(str), sort=True):
        backend = _single(part["backend"])
        if backend is not None:
            models.append((str(model), backend_facts(backend).in_process, _single(part["file_sha256"])))
    return served_twins(models)


def _suites(rows: pd.DataFrame, model: str) -> pd.DataFrame:
    """A model's primary trials of the task suites (the null control's reruns aside)."""
    return rows[(rows["model"].astype(str) == model) & rows["suite"].astype(str).isin(SUITES)]


def twin_rows(primary: pd.DataFrame, twins: tuple[tuple[str, str], ...]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Both sides' trials: the in-process models' and the served models', the latter named as their in-process
    twin (so that a pair is one task of one file) and each with its server."""
    inside = pd.concat([_suites(primary, a) for a, _ in twins]).astype({"model": str})
    served = pd.concat([_suites(primary, b).assign(model=a) for a, b in twins]).astype({"model": str})
    return inside, served


def server_name(served: pd.DataFrame) -> str:
    """What served the served side: the server as it names itself, else its backend's declared engine."""
    named = sorted(served["served_by"].dropna().astype(str).unique())
    if len(named) == 1:
        return named[0]
    engines = sorted({backend_facts(b).engine for b in served["backend"].dropna().astype(str).unique()})
    return engines[0] if len(engines) == 1 else "a server"


def twin_comparison(trials: pd.DataFrame, primary: pd.DataFrame, params: dict[str, Any]) -> TopicResult:
    """The comparison of every twin pair the primary trials hold (empty where none ran)."""
    twins = twin_models(primary)
    if not twins:
        return TopicResult()
    inside, served = twin_rows(primary, twins)
    select: Selection = {"study": STUDY_ID, "primary": True}
    sides = Sides(
        trials, {**select, "model": [a for a, _ in twins]}, {**select, "model": [b for _, b in twins]}
    )
    pairs = sides.pairs(inside, served)
    res = comparison(PREFIX, pairs, sides, (IN_PROCESS, server_name(served)), params)
    res.tables = {f"{PREFIX}_{name}": rows for name, rows in res.tables.items()}
    res.numbers += agreement(pairs, sides, twins)
    res.labels.update({nb.slug(a): f"{a} / {b}" for a, b in twins})
    return res


def agreement(pairs: pd.DataFrame, sides: Sides, twins: tuple[tuple[str, str], ...]) -> list[Number]:
    """How many pairs had the same outcome on both sides, pooled and per pair of models, and which model served
    each file (a text key per in-process model)."""
    out: list[Number] = []
    parts = [
        (PREFIX, pairs),
        *((f"{PREFIX}.model.{nb.slug(a)}", pairs[pairs["model"] == a]) for a, _ in twins),
    ]
    for key, part in parts:
        both, _, _, neither = cells(part)
        prov = nb.provenance(
            cells, sides.both(part), "pairs with the same outcome on both sides", unit="pairs"
        )
        out.append(nb.count(f"{key}.n.same", both + neither, prov))
    for a, b in twins:
        prov = nb.provenance(
            served_twins, {"study": STUDY_ID, "model": [a, b]}, "the served model of the file"
        )
        out.append(nb.text(f"{PREFIX}.model.{nb.slug(a)}.served", b, prov))
    return out
