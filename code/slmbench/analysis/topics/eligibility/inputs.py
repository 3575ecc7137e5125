"""What the topic reads: the raw eligibility runs, the baselines' predictions and each task's independent
labelling pass, named by the topic's parameters, with the sha256 of every file read."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from slmbench.analysis.topics import topic_inputs
from slmbench.analysis.topics.eligibility.agreement import IndependentPass, read_pass


@dataclass(frozen=True)
class EligibilityInputs:
    """What the topic reads: the runs (each ``{"file", "header", "items"}``), the baselines' document and each
    task's independent labelling pass, by task."""

    runs: list[dict[str, Any]] = field(default_factory=list)
    baselines: dict[str, Any] | None = None
    independent: dict[str, IndependentPass] = field(default_factory=dict)


@topic_inputs
def load_inputs(params: dict[str, Any]) -> tuple[EligibilityInputs, dict[str, Any]]:
    """Read the files named by ``params["records"]``, ``params["baselines"]`` and ``params["independent"]``
    (each ``<data>/<task>/independent/labels.jsonl``); return them and the hashes of every file read."""
    from slmbench.eligibility.records import read_run
    from slmbench.records.hashing import sha256_file

    paths = sorted(Path(p) for p in params.get("records") or [])
    runs = []
    for path in paths:
        run = read_run(path)
        items = [r.model_dump() for r in run.items]
        runs.append({"file": str(path), "header": run.header.model_dump(), "items": items})
    files = {str(p): sha256_file(p) for p in paths}
    baselines = None
    if params.get("baselines"):
        bpath = Path(params["baselines"])
        baselines = json.loads(bpath.read_text(encoding="utf-8"))
        files[str(bpath)] = sha256_file(bpath)
    independent: dict[str, IndependentPass] = {}
    for labels in sorted(Path(p) for p in params.get("independent") or []):
        task, found, read = read_pass(labels)
        independent[task] = found
        files.update({str(p): sha256_file(p) for p in read})
    return EligibilityInputs(runs, baselines, independent), {"input_sha256": files}
