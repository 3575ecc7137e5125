"""What the study's config decides about a trial: a configured model's size and kind, and the trial's role."""

from __future__ import annotations

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from slmbench.config import StudyConfig
from slmbench.run import roles
from slmbench.tidy.columns import ROLE_FLAGS, ROLE_TEXT

CONFIG_INPUTS = ["params_b", "is_base", *roles.INPUT_COLUMNS]
"""The columns ``apply_config`` reads."""


def apply_config(frame: pd.DataFrame, config: StudyConfig) -> pd.DataFrame:
    """A configured model's size and kind (base or instruction-tuned) from the config; each trial's role in the
    plan (``primary``, ``cpu_primary``, ``build_run``, ``build_part``, ``comparison``: ``slmbench.run.roles``)."""
    sizes = {m: spec.params_b for m, spec in config.models.items()}
    bases = {m: not spec.instruct for m, spec in config.models.items()}
    known = frame["model"].isin(list(sizes))
    frame["params_b"] = frame["model"].map(sizes).astype(float).where(known, frame["params_b"]).astype(float)
    frame["is_base"] = frame["model"].map(bases).astype(object).where(known, frame["is_base"]).astype(bool)
    frame["primary"] = roles.primary(frame, config)
    frame["cpu_primary"] = roles.cpu_primary(frame, config)
    frame["build_run"] = roles.build_run(frame, config)
    frame["build_part"] = roles.build_part(frame, config)
    frame["comparison"] = roles.comparison(frame, config)
    return frame


def with_config(ours: pa.Table, config: StudyConfig) -> pa.Table:
    """``apply_config`` on the columns it reads, written back into the Arrow table (the roles appended). The
    model names go in as a category: each lookup then costs one per model, not one per trial."""
    inputs = ours.select(CONFIG_INPUTS)
    at = inputs.schema.get_field_index("model")
    inputs = inputs.set_column(at, "model", pc.dictionary_encode(inputs.column("model")))
    decided = apply_config(inputs.to_pandas(), config)
    for name in ("params_b", "is_base"):
        ours = ours.set_column(ours.schema.get_field_index(name), name, pa.Array.from_pandas(decided[name]))
    for name in ROLE_FLAGS:
        ours = ours.append_column(name, pa.Array.from_pandas(decided[name]))
    for name in ROLE_TEXT:
        ours = ours.append_column(name, pa.Array.from_pandas(decided[name], type=pa.string()))
    return ours
