"""Teacher forcing replays a recorded trial through the loop: the rebuilt requests must hash as the recorded ones,
each recorded reply is scored once, and the report counts comparable and equal replies. The scorer here hands back
given values (no model); tests/integration/test_forced_scores_match_live.py scores with the real model."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from slmbench.backends.base import Message
from slmbench.config import load_config
from slmbench.records.ledger import iter_records
from slmbench.run.key import ShardKey
from slmbench.run.plan import shard_for
from slmbench.run.runner import run_settings
from slmbench.run.teacher_forcing import ReplayDiverged, ReplyComparison, force_trial, report

ROOT = Path(__file__).resolve().parents[3]
SHARD = "qwen2.5-coder-0.5b/capability_T0_native_repaired_p-full_rerun-portable"


class GivenScores:
    """A scorer that returns, for each reply in turn, the values given (``shift`` added to the first reply's
    first value)."""

    supports_native_tools = True

    def __init__(self, values: list[list[float]], shift: float = 0.0) -> None:
        self._values: Iterator[list[float]] = iter(values)
        self.shift = shift
        self.texts: list[str] = []

    def teacher_forced(
        self, messages: list[Message], tools: list[dict[str, Any]] | None, text: str, stopped: bool
    ) -> list[float]:
        self.texts.append(text)
        found, shift = list(next(self._values)), self.shift
        self.shift = 0.0
        return [found[0] + shift, *found[1:]]

    def reset(self) -> bool:
        return True

    def fingerprint(self) -> dict[str, Any]:
        return {}


def _recorded(n: int) -> list[dict[str, Any]]:
    path = ROOT / "data/raw/slmbench" / f"{SHARD}.jsonl"
    return [r.model_dump(mode="json") for _, r in list(iter_records(path))[:n]]


def _responses(record: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for e in record["events"] if e["type"] == "model_response"]


@pytest.fixture(scope="module")
def run() -> Any:
    config = load_config(ROOT / "config.yaml")
    return run_settings(config, shard_for(config, ShardKey.from_name(SHARD)))


def test_a_replay_rebuilds_every_recorded_request_and_scores_each_reply_once(run: Any) -> None:
    for record in _recorded(4):
        live = [e["logprobs"] for e in _responses(record)]
        scorer = GivenScores(live)
        compared = force_trial(run, record, scorer)
        assert scorer.texts == [e["raw_text"] for e in _responses(record)]
        assert [c.max_abs_difference for c in compared] == [0.0] * len(live)


def test_a_different_score_is_reported_with_its_size(run: Any) -> None:
    record = _recorded(1)[0]
    compared = force_trial(run, record, GivenScores([e["logprobs"] for e in _responses(record)], shift=0.25))
    found = report(SHARD, "b", {record["trial_id"]: compared})
    assert found["equal_replies"] == found["comparable_replies"] - 1
    assert found["max_abs_difference"] == pytest.approx(0.25)


def test_a_record_whose_conversation_the_replay_cannot_rebuild_is_named(run: Any) -> None:
    record = _recorded(1)[0]
    request = next(e for e in record["events"] if e["type"] == "model_request")
    request["prompt_sha256"] = "0" * 64
    with pytest.raises(ReplayDiverged, match=rf"{record['trial_id']}: turn 1: the replayed request is not"):
        force_trial(run, record, GivenScores([e["logprobs"] for e in _responses(record)]))


def test_a_reply_that_retokenises_into_fewer_tokens_is_not_comparable() -> None:
    short = ReplyComparison(turn=1, tokens=3, live=(-0.1, -0.2, -0.3, -0.4), forced=(-0.1, -0.2))
    assert not short.comparable
    assert report("s", "b", {"t": [short]})["comparable_replies"] == 0
