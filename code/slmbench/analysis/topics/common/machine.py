"""Where and how often a topic's trials ran: the kinds of CPU and the builds recorded and the runs of each task."""

from __future__ import annotations

from typing import Any

import pandas as pd

from slmbench.analysis import numbers as nb
from slmbench.records.fingerprint import NATIVE_BUILD


def build_text(build: str) -> str:
    """How the text names a build: a portable build by its identity, a native one by the CPU it was compiled on."""
    if build.startswith(NATIVE_BUILD):
        return f"llama.cpp compiled for the host's own CPU ({build.removeprefix(NATIVE_BUILD)})"
    return f"the portable build of llama.cpp ({build})"


def run_machine(prefix: str, df: pd.DataFrame, sel: dict[str, Any], what: str) -> list[nb.Number]:
    """``<prefix>.cpu`` (the kinds of CPU the trials recorded, joined by "and"), ``<prefix>.build`` (their builds,
    ``build_text``) and ``<prefix>.repeats`` (runs of each task, the most of any task and variant)."""
    cpus = sorted(str(c) for c in df["cpu"].dropna().unique()) if "cpu" in df else []
    builds = sorted(str(b) for b in df["build"].dropna().unique()) if "build" in df else []
    runs = (
        df.groupby(["model", "task_id", "variant"], observed=True).size() if len(df) else pd.Series(dtype=int)
    )
    cprov = nb.provenance("unique", sel, f"kinds of CPU of the {what}")
    rprov = nb.provenance("max", sel, f"runs of each task of the {what}")
    bprov = nb.provenance("unique", sel, f"builds of the {what}")
    return [
        nb.text(f"{prefix}.cpu", " and ".join(cpus) or "an unrecorded kind of CPU", cprov),
        nb.text(f"{prefix}.build", " and ".join(map(build_text, builds)) or "an unrecorded build", bprov),
        nb.count(f"{prefix}.repeats", int(runs.max()) if len(runs) else 0, rprov),
    ]
