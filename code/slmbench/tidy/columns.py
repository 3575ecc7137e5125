"""The columns of the tidy tables: which exist, in what order, and how each is stored and read."""

from __future__ import annotations

import pyarrow as pa

from slmbench.records import schema as rec

TRIAL_COLUMNS = [
    "trial_id",
    "study",
    "suite",
    "task_id",
    "group",
    "dimension",
    "variant",
    "model",
    "params_b",
    "is_base",
    "temperature",
    "seed",
    "repeat",
    "scaffold",
    "parser_mode",
    "outcome",
    "passed",
    "partial",
    "failure_class",
    "failure_class_clock_first",
    "refused",
    "turns",
    "wall_s",
    "prompt_tokens",
    "completion_tokens",
    "n_tool_calls",
    "n_refusals",
    "peak_rss_mb",
    "answer",
    "source_file",
    "source_line",
    "derived_from_rate",
]
SERVED_COLUMNS = ["server", "server_calls", "raw_calls", "calls_changed", "calls_dropped", "calls_added"]
"""A serving-comparison trial's server (missing for every other trial) and its calls as the server returned them
against our reading of its raw text (``slmbench.harness.served``)."""
IDENTITY_COLUMNS = ["backend", "file_sha256", "native_tools", "served_by", "server_build", "endpoint",
                    "quantisation", "concurrency"]  # fmt: skip
"""What each trial's fingerprint says ran it (``backends.identity.RunIdentity``): the paper states it per model."""
# Columns only raw records have (a published study's table leaves them empty); ``imported_from`` names the format a
# record of an imported study came from (``inspect``), and is missing for our own trials.
RECORD_COLUMNS = [
    "n_ctx",
    "stop_reason",
    "protocol",
    "conditions",
    "max_turns",
    "max_tokens",
    "budget_s",
    "answer_channel",
    "closing_answer",
    "n_stuck",
    "harm",
    "recorded_outcome",
    "rejudged_by",
    "rescored",
    "state_source",
    "check_sha256",
    "criteria",
    "transcript_sha256",
    "confidence",
    "cpu",
    "build",
    "rerun",
    "perturbation",
    "first_request_sha256",
    "first_reply_sha256",
    *SERVED_COLUMNS,
    *IDENTITY_COLUMNS,
    "imported_from",
]
LARGE_TEXT_COLUMNS = ("answer", "transcript_sha256", "first_request_sha256", "first_reply_sha256")
"""Text of a value per trial that few topics read: a topic reads them only when its module names them in
``LARGE_TEXT_READ`` (at a million trials they are a hundred megabytes that every row filter would copy)."""
AUDIT_COLUMNS = (
    "criteria",
    "source_file",
    "source_line",
    "check_sha256",
    "state_source",
    "recorded_outcome",
    "rejudged_by",
    "rescored",
    "derived_from_rate",
    "seed",
    "partial",
    "turns",
)
"""Columns kept to audit a trial (where its record is, how it was judged); no statistic reads them, so the
analysis topics leave them unread."""
DICTIONARY_COLUMNS = ("criteria", "source_file", "check_sha256", "state_source", "answer_channel")
"""Audit text of few distinct values per shard (a task's verdicts on its criteria, the shard's path), kept
dictionary-encoded from the shard on: the merge, its sort and the Parquet writer then move integer codes (at a
million trials ``criteria`` alone was 476 MB of the 1.1 GB table, copied twice by the merge)."""
DICTIONARY = pa.dictionary(pa.int32(), pa.string())
CATEGORY_COLUMNS = ("study", "suite", "group", "dimension", "variant", "model", "scaffold", "parser_mode",
                    "outcome", "failure_class", "failure_class_clock_first", "stop_reason", "protocol", "conditions",
                    "task_id", "cpu", "build", "rerun", "perturbation", "build_part", "server", "imported_from", "backend",
                    "file_sha256", "served_by", "server_build", "endpoint", "quantisation")  # fmt: skip
"""Text columns of few distinct values, which the topics read as pandas categories: each copy of the rows
then copies small integer codes instead of the text."""
EVENT_COLUMNS = [
    "trial_id",
    "seq",
    "type",
    "turn",
    "name",
    "code",
    "surface",
    "parser_mode",
    "repairs",
    "arguments",
]
EVENT_TYPES = (rec.ToolCallEvent, rec.RefusalEvent)
"""The events ``events.parquet`` keeps: tool calls and refusals."""
SORT_KEYS = [
    "study",
    "model",
    "suite",
    "task_id",
    "variant",
    "temperature",
    "scaffold",
    "parser_mode",
    "repeat",
]
"""The order of the trials table."""
ROLE_FLAGS = ("primary", "cpu_primary", "build_run")
"""The roles of a trial in the plan that are true or false, decided from the config (``slmbench.run.roles``)."""
ROLE_TEXT = ("comparison", "build_part")
"""The roles of a trial in the plan that name a part of it (missing for a trial of no such part)."""
