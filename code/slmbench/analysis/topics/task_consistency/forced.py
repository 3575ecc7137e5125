"""Whether a confidence can be computed from the records: the teacher-forcing reports (``slmbench
teacher-force``) of shards that recorded their log-probabilities live, totalled (``tcons.forced.…``; unit:
model replies)."""

from __future__ import annotations

import json
from pathlib import Path

from slmbench.analysis import numbers as nb
from slmbench.run.teacher_forcing import report

PREFIX = "tcons.forced"


def forced_numbers(paths: list[str]) -> list[nb.Number]:
    """Shards, trials, replies scored again, replies comparable (their text re-tokenises into the sampled
    tokens), their tokens, the replies whose forced log-probabilities equal the live ones to the last bit, and the
    largest difference (nats); nothing without a report."""
    if not paths:
        return []
    reports = [json.loads(Path(p).read_text()) for p in sorted(paths)]
    selection = {"trial_id": sorted(t for r in reports for t in r["by_trial"])}
    prov = nb.provenance(report, selection, "replies of the recorded trials scored again by teacher forcing",
                         unit="replies", reports=sorted(paths))  # fmt: skip
    totals = {name: sum(int(r[name]) for r in reports) for name in
              ("trials", "replies", "comparable_replies", "tokens", "equal_replies")}  # fmt: skip
    largest = max(float(r["max_abs_difference"]) for r in reports)
    return [
        nb.count(
            f"{PREFIX}.n.trials",
            totals["trials"],
            {**prov, "unit": "trials", "description": "trials replayed"},
        ),
        nb.count(f"{PREFIX}.n.replies", totals["replies"], prov),
        nb.count(
            f"{PREFIX}.n.comparable",
            totals["comparable_replies"],
            {**prov, "description": "comparable replies"},
        ),
        nb.count(
            f"{PREFIX}.n.tokens",
            totals["tokens"],
            {**prov, "description": "tokens of the comparable replies"},
        ),
        nb.count(
            f"{PREFIX}.n.equal", totals["equal_replies"], {**prov, "description": "replies equal to the bit"}
        ),
        nb.stat(f"{PREFIX}.max-diff", largest, {**prov, "description": "largest difference, nats"}, digits=3),
    ]
