"""The temperature sweep under full: each swept temperature's accuracy minus the lowest's on the tasks run at
both, tasks resampled (``proto.rep.<m>.<t>.diff``), and the kinds of CPU each temperature ran on."""

from __future__ import annotations

import numpy as np
import pandas as pd

from slmbench.analysis import numbers as nb
from slmbench.analysis import phrases
from slmbench.analysis.numbers import TopicResult
from slmbench.analysis.stats_bootstrap import Draw, cluster_bootstrap
from slmbench.analysis.topics.common import estimate_parts
from slmbench.analysis.topics.protocol.conditions import FULL, scored_rows

_BOOT = cluster_bootstrap


def sweep(res: TopicResult, trials: pd.DataFrame, alpha: float, seed: int, n_boot: int) -> None:
    """Per model run at more than one temperature under full: each temperature's accuracy over its repeats minus
    the lowest temperature's, on the tasks run at both, with a percentile interval from resampling tasks (a
    task's repeats are not independent draws); and the kinds of CPU each temperature ran on."""
    full = scored_rows(trials, FULL, all_temperatures=True)
    lowest = float(trials["temperature"].min())
    per_model = full.rows.groupby("model", observed=True)["temperature"].nunique()
    swept = full.where({"model": sorted(str(m) for m in per_model[per_model > 1].index)})
    ours = swept.rows
    found: list[tuple[str, float, float, float, float]] = []
    at_lowest = ours["temperature"] == lowest
    # trials and passes per model, task and temperature, once: a column per (count, temperature)
    counts = ours.groupby(["model", "task_id", "temperature"], observed=True)["passed"].agg(["size", "sum"])
    wide: pd.DataFrame = counts.unstack("temperature")  # type: ignore[assignment]
    for (model, temp_value), _ in ours[~at_lowest].groupby(["model", "temperature"], observed=True):
        temp = float(temp_value)  # type: ignore[arg-type]
        # the tasks run at both temperatures (a missing column or count: not run there)
        columns = [("size", temp_value), ("sum", temp_value), ("size", lowest), ("sum", lowest)]
        both = wide.loc[model].reindex(columns=columns).dropna()  # type: ignore[call-overload]
        shared = both.index.tolist()
        per_task = pd.DataFrame(both.to_numpy(dtype=int), columns=["n_t", "k_t", "n_0", "k_0"]).assign(
            task_id=shared
        )
        boot = cluster_bootstrap(
            per_task, _sweep_diff, cluster="task_id", n_resamples=n_boot, seed=seed, alpha=alpha, batched=True
        )
        selection = {**full.selection, "model": str(model), "temperature": [lowest, temp], "task_id": shared}
        desc = (
            f"accuracy of {model} at T={temp:g} minus T={lowest:g} on the tasks run at both, tasks resampled"
        )
        prov = nb.provenance(_BOOT, selection, desc, unit="trials", bootstrap_seed=seed, alpha=alpha)
        key = f"proto.rep.{nb.slug(model)}.{nb.temp_slug(temp)}.diff"
        res.numbers += [
            nb.rate(f"{key}{sfx}", v, prov) for sfx, v in estimate_parts(boot.estimate, *boot.interval)
        ]
        res.numbers.append(nb.count(f"{key}.n-tasks", len(shared), prov))
        found.append((str(model), temp, boot.estimate, boot.lo, boot.hi))
    dprov = nb.provenance(
        _BOOT, swept.selection, "differences from the lowest temperature", bootstrap_seed=seed
    )
    text = phrases.sweep_diff_phrase(found, lowest, 1 - alpha)
    res.numbers.append(nb.text("proto.phrase.sweep-diff", text, dprov))
    cpus: dict[float, list[str]] = {}  # a table tidied before the column existed: an unrecorded CPU
    for temp_value, part in ours.groupby("temperature", observed=True):
        kinds = part["cpu"].dropna().astype(str).unique().tolist() if "cpu" in part else []
        cpus[float(temp_value)] = sorted(kinds)  # type: ignore[arg-type]
    cprov = nb.provenance("sorted", swept.selection, "kinds of CPU per temperature of the swept models")
    res.numbers.append(nb.text("proto.phrase.sweep-cpu", phrases.sweep_cpu_phrase(cpus), cprov))


def _sweep_diff(draw: Draw) -> np.ndarray:
    """Accuracy at the swept temperature minus at the lowest, over the drawn tasks' counts (per resample: the
    last axis holds the drawn tasks)."""
    with np.errstate(invalid="ignore", divide="ignore"):  # no trial drawn: nan
        at_t = draw["k_t"].sum(axis=-1) / draw["n_t"].sum(axis=-1)
        at_0 = draw["k_0"].sum(axis=-1) / draw["n_0"].sum(axis=-1)
    return np.asarray(at_t - at_0, dtype=float)
