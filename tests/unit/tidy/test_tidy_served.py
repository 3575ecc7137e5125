"""A served trial through the runner and tidy: the raw text the server returned is recorded, and tidy counts the
calls the server returned against our parser's reading of that text (``SERVED_COLUMNS``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from slmbench.backends.base import GenerationOptions, Message, ModelReply
from slmbench.conditions import ProtocolConditions
from slmbench.records.ledger import iter_records
from slmbench.run.key import ShardKey
from slmbench.run.plan import Shard
from slmbench.run.runner import ShardRun, run_shard
from slmbench.tidy import shard_tables
from slmbench.tidy.columns import SERVED_COLUMNS

FULL = ProtocolConditions(
    canonical_history=True, stuck_detection=True, answer_channel=True, closing_turn=True, clean_kv=True
)
SERVING = {"server": "llama-server", "in_process_model": "m", "n_ctx": 4096}


def _call(name: str, arguments: dict[str, Any]) -> str:
    return json.dumps({"name": name, "arguments": arguments})


def _native(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"id": "c", "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


PRICING, DISCOUNT = {"topic": "pricing"}, {"topic": "annual discount"}
ANSWER = {"answer": "One year of Basic with annual billing costs 244.80 EUR."}
# (raw text the server generated, what it returned as content, its tool_calls)
REPLIES = [
    (  # two tagged calls: the server's parser returned the first only
        f"<tool_call>\n{_call('knowledge_lookup', PRICING)}\n</tool_call>\n"
        f"<tool_call>\n{_call('knowledge_lookup', DISCOUNT)}\n</tool_call>",
        "",
        [_native("knowledge_lookup", PRICING)],
    ),
    (  # bare JSON: left in the content (our harness still reads it there)
        _call("knowledge_lookup", DISCOUNT),
        _call("knowledge_lookup", DISCOUNT),
        [],
    ),
    (f"<tool_call>\n{_call('final_answer', ANSWER)}\n</tool_call>", "", [_native("final_answer", ANSWER)]),
]


class ServedDouble:
    """A served model whose server parses tool calls itself and returns its raw text."""

    name = "openai"
    supports_native_tools = True

    def __init__(self) -> None:
        self.replies = list(REPLIES)

    def chat(
        self, messages: list[Message], tools: list[dict[str, Any]] | None, options: GenerationOptions
    ) -> ModelReply:
        if tools is None:  # the preflight
            return ModelReply(text="OK", server_text="OK")
        raw, content, calls = self.replies.pop(0)
        return ModelReply(text=content, native_tool_calls=calls, server_text=raw, finish_reason="stop")

    def reset(self) -> bool:
        return False

    def fingerprint(self) -> dict[str, Any]:
        return {"backend": self.name}

    def close(self) -> None:
        pass


def _run(tmp_path: Path, server: str | None) -> Path:
    key = ShardKey("m", "capability", 0.0, "native", "repaired", protocol="full", server=server)
    shard = ShardRun(Shard(key, 1, ("MSR-1",)), 0, 5, 60.0, 64, FULL, serving=SERVING if server else None)
    out = tmp_path / f"{key.stem()}.jsonl"
    assert run_shard(shard, ServedDouble, out, progress=False) == 1
    return out


def test_the_server_raw_text_is_recorded_and_tidy_counts_what_its_parser_dropped(tmp_path: Path) -> None:
    path = _run(tmp_path, "llama-server")
    [(_, record)] = list(iter_records(path))
    assert record.trial_id.endswith("/p-full/srv-llama-server/r0")
    assert record.provenance["settings"]["serving"] == SERVING
    assert [e.server_text for e in record.events if e.type == "model_response"] == [r[0] for r in REPLIES]
    row = shard_tables(path, "s")["trials"].to_pandas().iloc[0]
    # the harness ran the pricing call the server returned and the bare JSON call it read in the content itself
    assert row["outcome"] == "success" and row["n_tool_calls"] == 2
    assert (row["server"], row["server_calls"], row["raw_calls"]) == ("llama-server", 2, 4)
    assert (row["calls_dropped"], row["calls_changed"], row["calls_added"]) == (2, 0, 0)


def test_a_trial_on_the_models_own_backend_has_no_server_columns(tmp_path: Path) -> None:
    row = shard_tables(_run(tmp_path, None), "s")["trials"].to_pandas().iloc[0]
    assert all(pd.isna(row[c]) for c in SERVED_COLUMNS)
