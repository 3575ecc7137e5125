"""The facts of each configured model that its text may state: its name, size and kind from the configuration,
where it ran from its backend's declared facts, and what ran it (file, tools, server, quantisation, trials in
flight) from its primary trials' fingerprints (``backends.identity``), the configuration where they record none.
Models whose records name one file's sha256 are one file; one of them run in-process and another served is a
pair the serving comparison compares task by task."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import pandas as pd

from slmbench.analysis.numbers import slug
from slmbench.backends import backend_facts, served_twins
from slmbench.config import StudyConfig

IDENTITY_FACT_COLUMNS = ("file_sha256", "native_tools", "served_by", "server_build", "endpoint", "quantisation",
                         "concurrency")  # fmt: skip
"""The trials table's columns of what ran each trial (tidy: ``IDENTITY_COLUMNS``) that the facts read."""


@dataclass(frozen=True)
class ModelFacts:
    """One configured model: its name (the config's key, as tables print it), the key slug, size and kind, where
    it ran and what ran it."""

    name: str
    slug: str
    params_b: float
    instruct: bool
    backend: str
    pypi: bool
    """Its weights come from PyPI packages (not a file of the user's own or a server)."""
    in_process: bool = True
    """Its backend runs the model in the harness's process (else behind a server)."""
    describes: str = ""
    """How the paper names where it ran (its backend's declared ``describes``)."""
    engine: str = ""
    """The inference engine its backend declares (``llama.cpp``, ``Ollama``, ``OpenAI-compatible server``)."""
    native_tools: tuple[bool, ...] = ()
    """Whether its primary trials sent the tools natively (each value recorded; empty: none recorded)."""
    file_sha256: str | None = None
    served_by: str | None = None
    """The server that served it as the server names itself (None: in-process, or the server did not say)."""
    server_build: str | None = None
    endpoint: str | None = None
    quantisation: str | None = None
    concurrency: int = 1

    @property
    def server(self) -> str:
        """What served it: the server's own name, else its backend's engine."""
        return self.served_by or self.engine

    @property
    def server_place(self) -> str:
        """Where it was served: the address its server answered at (its own name where none is recorded), so that
        models behind one server count one server."""
        return self.endpoint or f"{self.backend}:{self.name}"


def _one(values: pd.Series) -> str | None:
    """The single recorded value of a column (None: none or several)."""
    found = values.dropna().astype(str).unique()
    return str(found[0]) if len(found) == 1 else None


def model_facts(config: StudyConfig, primary: pd.DataFrame) -> tuple[ModelFacts, ...]:
    """Every configured model, smallest first, with what its ``primary`` trials (this study's) record."""
    out = []
    for name, spec in config.models.items():
        declared = backend_facts(spec.backend)
        mine = primary[primary["model"].astype(str) == name] if "model" in primary else primary.iloc[0:0]
        recorded = {c: mine[c] if c in mine else pd.Series(dtype=object) for c in IDENTITY_FACT_COLUMNS}
        pinned = spec.weights.sha256 if spec.weights else None
        concurrency = pd.to_numeric(recorded["concurrency"], errors="coerce").dropna()
        out.append(
            ModelFacts(
                name=name,
                slug=slug(name),
                params_b=spec.params_b,
                instruct=spec.instruct,
                backend=spec.backend,
                pypi=bool(spec.weights and spec.weights.packages),
                in_process=declared.in_process,
                describes=declared.describes,
                engine=declared.engine,
                native_tools=tuple(sorted({bool(v) for v in recorded["native_tools"].dropna()})),
                file_sha256=_one(recorded["file_sha256"]) or pinned,
                served_by=None if declared.in_process else _one(recorded["served_by"]),
                server_build=None if declared.in_process else _one(recorded["server_build"]),
                endpoint=None if declared.in_process else _one(recorded["endpoint"]),
                quantisation=_one(recorded["quantisation"]) or spec.quantisation or None,
                concurrency=int(concurrency.max()) if len(concurrency) else spec.concurrency,
            )
        )
    return tuple(sorted(out, key=lambda m: (m.params_b, m.name)))


def same_file(models: Iterable[ModelFacts]) -> tuple[tuple[str, ...], ...]:
    """The groups of two or more models whose records name one file (one sha256), each in the models' order."""
    groups: dict[str, list[str]] = {}
    for m in models:
        if m.file_sha256:
            groups.setdefault(m.file_sha256, []).append(m.name)
    return tuple(tuple(g) for g in groups.values() if len(g) > 1)


def served_pairs(models: Iterable[ModelFacts]) -> tuple[tuple[str, str], ...]:
    """Each pair of one file in-process and served: (the in-process model, the served model)
    (``backends.identity.served_twins``, the rule the serving topic pairs them by)."""
    return served_twins((m.name, m.in_process, m.file_sha256) for m in models)
