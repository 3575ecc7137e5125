"""``slmbench tidy``: raw shards (and imported external trials) → trials.parquet, events.parquet, manifest.json.

Each raw record becomes one trial row, judged again with today's checks (``rows``, ``judge``); each shard's
rows are derived on their own and merged with what the config decides (``tables``, ``configured``), in Arrow
(``arrow``), and written atomically (``writer``). ``events.parquet`` holds the tool calls and refusals of every
trial (what the analysis counts); every other event stays in the raw record. The columns of both tables and how
each is stored are declared in ``columns``.

A corrupt or schema-invalid raw line stops the build with ``file:line`` and the reason.
"""

from slmbench.tidy.arrow import merged_table, sort_order
from slmbench.tidy.columns import (
    AUDIT_COLUMNS,
    CATEGORY_COLUMNS,
    DICTIONARY_COLUMNS,
    EVENT_COLUMNS,
    LARGE_TEXT_COLUMNS,
    RECORD_COLUMNS,
    SORT_KEYS,
    TRIAL_COLUMNS,
)
from slmbench.tidy.configured import apply_config
from slmbench.tidy.rows import event_rows, trial_row
from slmbench.tidy.tables import (
    NoTrialsError,
    StudyShards,
    no_trials_message,
    raw_shards,
    shard_tables,
    study_shards,
    tidy_tables,
)

__all__ = [
    "AUDIT_COLUMNS",
    "CATEGORY_COLUMNS",
    "DICTIONARY_COLUMNS",
    "EVENT_COLUMNS",
    "LARGE_TEXT_COLUMNS",
    "RECORD_COLUMNS",
    "SORT_KEYS",
    "TRIAL_COLUMNS",
    "NoTrialsError",
    "StudyShards",
    "apply_config",
    "event_rows",
    "merged_table",
    "no_trials_message",
    "raw_shards",
    "shard_tables",
    "sort_order",
    "study_shards",
    "tidy_tables",
    "trial_row",
]
