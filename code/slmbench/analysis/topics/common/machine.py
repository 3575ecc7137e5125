"""Where and how often a topic's trials ran: the kinds of CPU recorded and the runs of each task."""

from __future__ import annotations

from typing import Any

import pandas as pd

from slmbench.analysis import numbers as nb


def run_machine(prefix: str, df: pd.DataFrame, sel: dict[str, Any], what: str) -> list[nb.Number]:
    """``<prefix>.cpu`` (the kinds of CPU the trials recorded, joined by "and") and ``<prefix>.repeats`` (runs of
    each task, the most of any task and variant)."""
    cpus = sorted(str(c) for c in df["cpu"].dropna().unique()) if "cpu" in df else []
    runs = (
        df.groupby(["model", "task_id", "variant"], observed=True).size() if len(df) else pd.Series(dtype=int)
    )
    cprov = nb.provenance("unique", sel, f"kinds of CPU of the {what}")
    rprov = nb.provenance("max", sel, f"runs of each task of the {what}")
    return [
        nb.text(f"{prefix}.cpu", " and ".join(cpus) or "an unrecorded kind of CPU", cprov),
        nb.count(f"{prefix}.repeats", int(runs.max()) if len(runs) else 0, rprov),
    ]
