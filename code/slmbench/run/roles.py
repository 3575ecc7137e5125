"""The role each recorded trial plays in the study's plan: one of the primary results, or one side of a
comparison (another scaffold, a smaller context window), decided once from config.yaml and the plan.

A trial is *primary* when it ran the study's primary condition (the config's scaffold, parser mode, protocol,
limits, temperatures and the model's context window, on the model's own backend, tasks as written) in the primary
run: the first run on the primary build (greedy replies can differ between builds, so every primary result and
every comparison with it reads trials of one build). The primary build is the config's ``primary_build`` where it
names one; otherwise, by a fixed rule, the portable build with the most trials of the primary condition (ties: the
first identity in sort order); where no trial ran on a portable build, the original runs. A trial is
*cpu-primary* when it is in the primary condition's first run on its own build (a comparison run on another build
pairs with it). A build is a portable build's identity, or ``native/<CPU>`` for a trial from before it.
A trial's *comparison* is the
part of the plan its shard belongs to (``scaffold``, ``context`` or ``serving``), so a comparison pairs exactly the
shards the config planned for it, whatever protocol they name. A trial is *build-run* when its shard is one of the
runs on one build (``build_run``: the primary condition once per task, samples, perturbations, other protocols,
all under the block's rerun label). Its *build part* is the part of those runs its shard belongs to
(``primary``, ``sampling``, ``perturbation``, ``protocol``).
"""

from __future__ import annotations

from pathlib import PurePosixPath

import numpy as np
import pandas as pd

from slmbench.config import ConfigError, StudyConfig
from slmbench.records.fingerprint import NATIVE_BUILD
from slmbench.run.plan import plan_shards
from slmbench.vocab import COMPARISON_KINDS, NULL_CONTROL

INPUT_COLUMNS = ["model", "suite", "temperature", "scaffold", "parser_mode", "protocol", "n_ctx", "max_turns",
                 "max_tokens", "rerun", "server", "build", "perturbation", "source_file"]  # fmt: skip
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
    suite = frame["suite"].isin(
        [*config.suites, NULL_CONTROL]
    )  # a suite only the build run adds is not primary
    own_backend = frame["server"].isna() if "server" in frame else pd.Series(True, index=frame.index)
    as_written = (
        frame["perturbation"].isna() if "perturbation" in frame else pd.Series(True, index=frame.index)
    )
    return (
        (frame["scaffold"] == config.scaffold)
        & (frame["parser_mode"] == config.parser_mode)
        & (frame["protocol"] == config.protocol)
        & same_ctx
        & same_limits
        & temperature
        & suite
        & own_backend
        & as_written
    )


def builds(frame: pd.DataFrame) -> pd.Series:
    """Each trial's build: the ``build`` column, or for a table tidied before it existed ``native/<cpu>``."""
    if "build" in frame:
        return frame["build"].astype(object)
    return (NATIVE_BUILD + frame["cpu"].astype(object)).where(frame["cpu"].notna(), None)


def primary_build(frame: pd.DataFrame, config: StudyConfig, condition: pd.Series) -> str | None:
    """The build the primary results read: the configured one, else the portable build with the most trials of
    the primary condition (ties: the first identity in sort order), else None (the original runs).

    Raises:
        ConfigError: a configured ``primary_build`` that no trial of the primary condition ran on (one line).
    """
    recorded = builds(frame)[condition].dropna().astype(str)
    if config.primary_build is not None:
        if len(recorded) and config.primary_build not in set(recorded):
            found = ", ".join(sorted(set(recorded)))
            raise ConfigError(
                f"config.yaml: primary_build: no trial of the primary condition ran on {config.primary_build!r} "
                f"(builds recorded: {found}); name one of them or remove the field"
            )
        return config.primary_build
    portable = recorded[~recorded.str.startswith(NATIVE_BUILD)]
    if portable.empty:
        return None
    counts = portable.value_counts()
    return str(sorted(counts[counts == counts.max()].index)[0])


def primary(frame: pd.DataFrame, config: StudyConfig) -> pd.Series:
    """Whether each trial is one of the primary results: the primary condition in the primary run of its model (the
    first run on the primary build, ``primary_build``; without one, the original run). The build is chosen per
    model, so a served model, whose trials ran on its server's build, keeps its own run beside in-process models
    that read a portable build; a configured build applies to each model that ran on it."""
    condition = primary_condition(frame, config)
    primary_build(frame, config, condition)  # a configured build that no trial ran on: one line
    chosen = pd.Series(False, index=frame.index)
    model = frame["model"].astype(object)
    for name in model[condition].dropna().unique():
        mine = condition & (model == name)
        recorded = set(builds(frame)[mine].dropna().astype(str))
        configured = config.primary_build if config.primary_build in recorded else None
        build = configured or primary_build(frame, config.model_copy(update={"primary_build": None}), mine)
        if build is None:
            chosen |= mine & frame["rerun"].isna()
        else:
            chosen |= first_run_on_build(frame, mine & (builds(frame) == build))
    return chosen


def cpu_primary(frame: pd.DataFrame, config: StudyConfig) -> pd.Series:
    """Whether each trial is in the primary condition's first run on its own build: the in-process side that a
    comparison run on another build than the primary one pairs with (the serving comparison), so that no pair
    crosses builds. On the primary build it is the primary run."""
    return first_run_on_build(frame, primary_condition(frame, config))


def first_run_on_build(frame: pd.DataFrame, condition: pd.Series) -> pd.Series:
    """Of the trials where ``condition`` holds, those of the first run on their build, per model, suite and
    temperature: the original run if it ran there, else the first rerun, by label."""
    original = frame["rerun"].isna()
    label = frame["rerun"].astype(object).where(~original, "")  # the original run sorts first
    chosen = pd.Series(False, index=frame.index)
    if condition.any():
        keys = [*_RUN, "build"]
        runs = frame.loc[condition, _RUN].astype(object).assign(build=builds(frame)[condition])
        runs = runs.assign(label=label[condition].astype(str))
        first = runs.groupby(keys, sort=False, dropna=False, observed=True)["label"].transform("min")
        chosen.loc[condition] = (runs["label"] == first).to_numpy()
    return condition & chosen


def _shard_names(frame: pd.DataFrame) -> pd.Series:
    """Each trial's shard as the plan names it: ``<model>/<file stem>``."""
    stems = frame["source_file"].astype(object).map(lambda s: PurePosixPath(str(s)).stem, na_action="ignore")
    return frame["model"].astype(object) + "/" + stems


def build_run(frame: pd.DataFrame, config: StudyConfig) -> pd.Series:
    """Whether each trial's shard was planned for the runs on one build (``build_run``)."""
    planned = {shard.key.name for shard in plan_shards(config) if "build_run" in shard.kinds}
    return _shard_names(frame).isin(planned).astype(bool)


def comparison(frame: pd.DataFrame, config: StudyConfig) -> pd.Series:
    """The comparison each trial's shard was planned for (``scaffold``, ``context``, ``serving``), else missing."""
    kinds: dict[str, str] = {}
    for shard in plan_shards(config):
        for kind in COMPARISON_KINDS:
            if kind in shard.kinds:
                kinds.setdefault(shard.key.name, kind)
    out = _shard_names(frame).map(kinds)
    return out.where(out.notna(), np.nan).astype(object)


def build_part(frame: pd.DataFrame, config: StudyConfig) -> pd.Series:
    """The part of the runs on one build each trial's shard was planned for (``vocab.BUILD_PARTS``: ``primary``,
    ``sampling``, ``perturbation``, ``protocol``), else missing."""
    parts = {s.key.name: s.build_part for s in plan_shards(config) if s.build_part is not None}
    out = _shard_names(frame).map(parts)
    return out.where(out.notna(), np.nan).astype(object)
