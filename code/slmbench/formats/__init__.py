"""slmbench.formats: the field's formats, out and in.

Out: ``inspect_out`` writes each raw shard as an Inspect eval log with Inspect's own types and writer
(``inspect_transcript`` turns a trial's events into its conversation); ``eee_out`` writes the study's results and
trials in Every Eval Ever's schema, checked by that package's validator. In: ``inspect_in`` turns the samples of
Inspect logs into the records of an imported study (``inspect_read`` reads the logs, ``inspect_events`` the
conversations). A file that cannot be read is one ``FormatError`` naming it. ``docs/formats.md`` says what maps to
what and what is lost each way.
"""

import importlib
from typing import Any

_EXPORTS: dict[str, str] = {
    "FormatError": "errors", "export_inspect": "inspect_out", "eval_log": "inspect_out",
    "export_eee": "eee_out", "import_inspect": "inspect_in", "transcript": "inspect_transcript",
}  # fmt: skip
"""Where each re-exported name lives; imported on first use (Inspect takes seconds to import)."""


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(f"slmbench.formats.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module 'slmbench.formats' has no attribute {name!r}")


__all__ = ["FormatError", "eval_log", "export_eee", "export_inspect", "import_inspect", "transcript"]
