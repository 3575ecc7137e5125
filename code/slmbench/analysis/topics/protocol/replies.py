"""Whether the same first request got the same first reply, on one kind of CPU and across two
(``proto.det.…``)."""

from __future__ import annotations

import pandas as pd

from slmbench.analysis import numbers as nb
from slmbench.analysis import phrases
from slmbench.analysis.numbers import TopicResult
from slmbench.analysis.selection import exclude
from slmbench.analysis.topics.common import pairs_within
from slmbench.analysis.topics.protocol.conditions import LEGACY, capability

NEEDED = ("build", "first_request_sha256", "first_reply_sha256")


def first_replies(res: TopicResult, trials: pd.DataFrame) -> None:
    """Over every pair of our capability trials at the lowest temperature with a clean KV state (any protocol
    but legacy) and the same model, task, variant and first request (prompt and sampling options): how many
    pairs ran on one build and on two (a native build is named by its kind of CPU), and how many of each gave
    different first replies."""
    ours, facts = capability(trials)
    selected = ours.where({"protocol": exclude(LEGACY), "temperature": facts.get("temperature")})
    if ours.rows.empty or not set(NEEDED) <= set(ours.rows):  # a table tidied before these columns existed
        rows = pd.DataFrame(columns=["model", "task_id", "variant", *NEEDED])
    else:
        selected = selected.where({column: exclude(None) for column in NEEDED[1:]})
        rows = selected.rows
    key = ["model", "task_id", "variant", "first_request_sha256"]
    everything = pairs_within(rows, key)
    same = pairs_within(rows, [*key, "build"])
    alike = pairs_within(rows, [*key, "first_reply_sha256"])
    same_alike = pairs_within(rows, [*key, "build", "first_reply_sha256"])
    cross = everything - same
    same_differ, cross_differ = same - same_alike, cross - (alike - same_alike)
    desc = "pairs of trials with identical first requests, by build (kind of CPU) and first reply"
    prov = nb.provenance("count", selected.selection, desc, unit="pairs")
    res.numbers += [
        nb.count("proto.det.n.cpus", int(rows["build"].nunique()) if len(rows) else 0, prov),
        nb.count("proto.det.same-cpu.n", same, prov),
        nb.count("proto.det.same-cpu.differ", same_differ, prov),
        nb.count("proto.det.cross-cpu.n", cross, prov),
        nb.count("proto.det.cross-cpu.differ", cross_differ, prov),
        nb.text("proto.phrase.cpu", phrases.cpu_phrase(same, same_differ, cross, cross_differ), prov),
    ]
