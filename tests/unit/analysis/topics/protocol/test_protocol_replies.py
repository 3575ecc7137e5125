"""Topic ``protocol``: whether one first request got one first reply, on one kind of CPU and across two."""

from __future__ import annotations

from tests.fixtures.protocol_study import trials

from slmbench.analysis.topics import get_topic


def test_first_replies_to_one_request_are_compared_on_one_cpu_and_across_two() -> None:
    """Every model and task starts with one request in five runs at T=0 outside legacy (which reused the KV cache
    and is left out): three full repeats and the no-answer run on CPU "A", the token-cap run on "B". Over the 12
    model-task groups: 12 x C(4,2) = 72 same-CPU pairs and 12 x 4 = 48 cross-CPU pairs. qa's T1 no-answer run
    replies otherwise: 3 same-CPU pairs and 1 cross-CPU pair differ. The token cap pairs B with A, the no-answer
    ablation A with A."""
    df = trials()
    df["cpu"] = "A"
    df.loc[(df["max_tokens"] == 512) | (df["protocol"] == "legacy"), "cpu"] = "B"
    df["build"] = "native/" + df["cpu"]  # builds from before the portable one are named by their CPU
    df["first_request_sha256"] = df["model"] + "/" + df["task_id"]
    df["first_reply_sha256"] = "same"
    odd = (df["model"] == "qa") & (df["task_id"] == "T1") & (df["protocol"] == "full-no-answer")
    df.loc[odd, "first_reply_sha256"] = "other"
    res = get_topic("protocol")(df, None, {"bootstrap_seed": 1, "n_boot": 20})
    got = {n.key: n.value for n in res.numbers}
    assert got["proto.det.same-cpu.n"] == 72 and got["proto.det.same-cpu.differ"] == 3
    assert got["proto.det.cross-cpu.n"] == 48 and got["proto.det.cross-cpu.differ"] == 1
    assert got["proto.det.n.cpus"] == 2
    assert "3 of the 72 pairs run on one kind of CPU gave different first replies" in got["proto.phrase.cpu"]
    assert (
        got["proto.cmp.max-tokens-512.n.cross-cpu"] == 12 and got["proto.cmp.full-no-answer.n.cross-cpu"] == 0
    )
    assert "max_tokens=512 vs full (12 of 12 pairs)" in got["proto.phrase.cross-cpu"]
    assert "full-no-answer vs full" not in got["proto.phrase.cross-cpu"]
