"""The role each recorded trial plays in the study's plan: one of the primary results, or one side of a
comparison (another scaffold, a smaller context window), decided once from config.yaml and the plan.

A trial is *primary* when it ran the study's primary condition (the config's scaffold, parser mode, protocol,
limits, temperatures and the model's context window, on the model's own backend) in the primary run: the original run, or, where the
config names a ``primary_cpu``, the run on that kind of CPU (greedy replies can differ between kinds of CPU, so
every primary result and every comparison with it then reads trials of one kind). A trial is *cpu-primary* when it
is in the primary condition's first run on its own kind of CPU (a comparison run on another kind pairs with it).
A trial's *comparison* is the
part of the plan its shard belongs to (``scaffold``, ``context`` or ``serving``), so a comparison pairs exactly the
shards the config planned for it, whatever protocol they name.
"""

from __future__ import annotations

from pathlib import PurePosixPath

import numpy as np
import pandas as pd

from slmbench.config import StudyConfig
from slmbench.run.plan import plan_shards
from slmbench.vocab import COMPARISON_KINDS

INPUT_COLUMNS = ["model", "suite", "temperature", "scaffold", "parser_mode", "protocol", "n_ctx", "max_turns",
                 "max_tokens", "rerun", "server", "cpu", "source_file"]  # fmt: skip
"""The trial columns the roles are decided from."""
_RUN = ["model", "suite", "temperature"]
"""What one run of the primary condition covers: one model's suite at one temperature."""


def primary_condition(frame: pd.DataFrame, config: StudyConfig) -> pd.Series:
    """Whether each trial ran the study's primary condition, in whichever run."""
    windows = {m: spec.n_ctx for m, spec in config.models.items()}
    configured = frame["model"].map(windows).astype(float)  # a model the config lacks: missing
    same_ctx = frame["n_ctx"].isna() | configured.isna() | (frame["n_ctx"] == configured)
    same_limits = (frame["max_turns"].isna() | (frame["max_turns"] == config.max_turns)) & (
        frame["max_tokens"].isna() | (frame["max_tokens"] == config.max_tokens)
    )
    temperature = frame["temperature"].astype(float).isin([float(t) for t in config.temperatures])
    own_backend = frame["server"].isna() if "server" in frame else pd.Series(True, index=frame.index)
    return (
        (frame["scaffold"] == config.scaffold)
        & (frame["parser_mode"] == config.parser_mode)
        & (frame["protocol"] == config.protocol)
        & same_ctx
        & same_limits
        & temperature
        & own_backend
    )


def primary(frame: pd.DataFrame, config: StudyConfig) -> pd.Series:
    """Whether each trial is one of the primary results: the primary condition in the primary run (the original
    run; with ``primary_cpu``, the run on that kind of CPU: the original if it ran there, else the first rerun
    that did, by label)."""
    condition = primary_condition(frame, config)
    if config.primary_cpu is None:
        return condition & frame["rerun"].isna()
    return first_run_on_cpu(frame, condition & (frame["cpu"] == config.primary_cpu))


def cpu_primary(frame: pd.DataFrame, config: StudyConfig) -> pd.Series:
    """Whether each trial is in the primary condition's first run on its own kind of CPU: the in-process side
    that a comparison run on another kind of CPU than ``primary_cpu`` pairs with (the serving comparison), so
    that no pair crosses kinds of CPU. On the primary kind of CPU it is the primary run."""
    return first_run_on_cpu(frame, primary_condition(frame, config))


def first_run_on_cpu(frame: pd.DataFrame, condition: pd.Series) -> pd.Series:
    """Of the trials where ``condition`` holds, those of the first run on their kind of CPU, per model, suite
    and temperature: the original run if it ran there, else the first rerun, by label."""
    original = frame["rerun"].isna()
    label = frame["rerun"].astype(object).where(~original, "")  # the original run sorts first
    chosen = pd.Series(False, index=frame.index)
    if condition.any():
        keys = [*_RUN, "cpu"]
        runs = frame.loc[condition, keys].astype(object).assign(label=label[condition].astype(str))
        first = runs.groupby(keys, sort=False, dropna=False, observed=True)["label"].transform("min")
        chosen.loc[condition] = (runs["label"] == first).to_numpy()
    return condition & chosen


def comparison(frame: pd.DataFrame, config: StudyConfig) -> pd.Series:
    """The comparison each trial's shard was planned for (``scaffold``, ``context``, ``serving``), else missing."""
    kinds: dict[str, str] = {}
    for shard in plan_shards(config):
        for kind in COMPARISON_KINDS:
            if kind in shard.kinds:
                kinds.setdefault(shard.key.name, kind)
    stems = frame["source_file"].astype(object).map(lambda s: PurePosixPath(str(s)).stem, na_action="ignore")
    names = frame["model"].astype(object) + "/" + stems
    out = names.map(kinds)
    return out.where(out.notna(), np.nan).astype(object)
