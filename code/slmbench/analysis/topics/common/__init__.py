"""Building blocks shared by topics: the rows that count, model accuracy with pairwise tests, size
correlations, temperature effects and the base-model floor."""

from slmbench.analysis.topics.common.accuracy import accuracy_block, correlation_numbers, top_model
from slmbench.analysis.topics.common.floor import floor_block
from slmbench.analysis.topics.common.rows import (
    CONDITION_COLUMNS,
    SCORED,
    counts_by,
    estimate_parts,
    json_float,
    model_info,
    models_table,
    pairs_within,
    primary_only,
    primary_rows,
    scored,
)
from slmbench.analysis.topics.common.temperature import temperature_block

__all__ = [
    "CONDITION_COLUMNS", "SCORED", "accuracy_block", "correlation_numbers", "counts_by", "estimate_parts",
    "floor_block", "json_float", "model_info", "models_table", "pairs_within", "primary_only", "primary_rows", "scored",
    "temperature_block", "top_model",
]  # fmt: skip
