"""Ollama models in the eligibility study: greedy reply matched to a candidate, top log-probabilities as bounds."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import click
import pytest
import yaml
from click.testing import CliRunner
from tests.fixtures.eligibility import data_dir
from tests.fixtures.ollama_server import OllamaFixtureServer, ScriptedToken, recorded, serve

from slmbench.backends.base import BackendError
from slmbench.backends.retry import RetryPolicy
from slmbench.cli import main
from slmbench.eligibility.datasets import ApprovalItem, Item, ToolItem, assign_split
from slmbench.eligibility.ollama_scorer import (
    OLLAMA_SCORING_RULE,
    TOP_LOGPROBS,
    OllamaLabelModel,
    OllamaScorer,
    match_candidate,
)
from slmbench.eligibility.prompts import build_prompt
from slmbench.eligibility.records import RunRecordError, read_run
from slmbench.eligibility.runner import Identity, run_task
from slmbench.vocab import EligibilityTask

ROOT = Path(__file__).parents[3]
FAST = RetryPolicy(attempts=2, base_delay_s=0.01, max_delay_s=0.02)
TAG = "llama3.2"  # a model the fixture server lists


def _items() -> list[ApprovalItem]:
    commands = [("ls -la", "approve"), ("rm -rf ~/x", "deny"), ("git status", "approve"), ("sudo su", "deny")]
    return [
        ApprovalItem(id=f"c{i}", command=c, label=lab, category="routine")  # type: ignore[arg-type]
        for i, (c, lab) in enumerate(commands)
    ]


def _tools() -> list[ToolItem]:
    return [
        ToolItem(id="t0", request="Email bob the report.", tools=["web_search", "email", "calculator"], label="email"),
        ToolItem(id="t1", request="What is 17 * 23?", tools=["web_search", "email", "calculator"], label="calculator"),
    ]  # fmt: skip


def _scorer(server: OllamaFixtureServer, task: EligibilityTask, items: Sequence[Item]) -> OllamaScorer:
    split = dict.fromkeys((it.id for it in items), "test")
    prompt = build_prompt(task, "terse", items, split, 1)  # type: ignore[arg-type]
    model = OllamaLabelModel(TAG, host=server.url, retry=FAST)
    return model.make_scorer(prompt, {"command_approval": "approve"}.get(task))


def _by_item(replies: dict[str, list[ScriptedToken]], marker: str) -> Callable[[str], list[ScriptedToken]]:
    """Scripted replies keyed by the item's last line (the command or the request)."""
    return lambda user: replies[user.rsplit(marker, 1)[1].split("\n", 1)[0]]


def test_binary_item_predicted_with_its_margin_from_top_logprobs() -> None:
    replies = {"ls -la": [("approve", -0.1, {"approve": -0.1, " Deny": -2.5, "den": -4.0, "\n": -5.0})]}
    items = _items()[:1]
    with serve("ok", replies=_by_item(replies, "Command:\n")) as server:
        scorer = _scorer(server, "command_approval", items)
        s = scorer.score(items[0])
        (request,) = server.seen("/api/chat")
    assert (s.prediction, s.match, s.generated) == ("approve", "exact", "approve")
    assert s.scores == {"approve": -0.1, "deny": -2.5}  # the best entry starting "deny" (stripped, any case)
    assert s.margin == pytest.approx(2.4) and s.ranking == ["approve", "deny"]
    assert (
        s.first_tokens_unique and s.n_evals == 1 and s.n_item_tokens == recorded("chat")["prompt_eval_count"]
    )
    body = request.body
    assert body["messages"] == [{"role": "user", "content": scorer.prompt.user_text(items[0])}]
    assert body["messages"][0]["content"].startswith(scorer.prompt.instructions)  # instructions first
    assert body["logprobs"] is True and body["top_logprobs"] == TOP_LOGPROBS == 20
    assert body["options"]["temperature"] == 0.0 and body["options"]["num_predict"] == len("approve") + 4
    assert body["options"]["seed"] == 0


def test_a_missing_label_token_gets_the_smallest_top_logprob() -> None:
    replies = {"rm -rf ~/x": [(" deny", -0.05, {" deny": -0.05, "Den": -3.0, "no": -6.0, '"': -1.0})]}
    items = _items()[1:2]
    with serve("ok", replies=_by_item(replies, "Command:\n")) as server:
        s = _scorer(server, "command_approval", items).score(items[0])
    assert (s.prediction, s.match) == ("deny", "exact")
    assert s.scores == {
        "approve": -6.0,
        "deny": -0.05,
    }  # no entry starts "approve": the smallest, an upper bound
    assert s.margin == pytest.approx(-6.0 + 0.05)
    assert not s.first_tokens_unique  # approve matched no entry


def test_tool_selection_is_predicted_by_exact_and_by_prefix_match() -> None:
    replies = {
        "Email bob the report.": [("email", -0.2, {"email": -0.2, "web": -1.5, "calc": -3.0})],
        "What is 17 * 23?": [
            ("`", -0.3, {"`": -0.3, "calc": -1.0}),
            ("calc", -0.5, {"calc": -0.5, "web": -2.0, "E": -4.0, "x": -7.0}),
            ("ulator", -1.8, {"ulator": -1.8}),
            ("_tool", -0.9, {"_tool": -0.9}),
            ("`", -0.2, {"`": -0.2}),
        ],
    }
    items = _tools()
    with serve("ok", replies=_by_item(replies, "Request: ")) as server:
        scorer = _scorer(server, "tool_selection", items)
        exact, prefix = scorer.score(items[0]), scorer.score(items[1])
    assert (exact.prediction, exact.match, exact.margin) == ("email", "exact", None)
    assert exact.scores == {"web_search": -1.5, "email": -0.2, "calculator": -3.0}
    assert exact.ranking == ["email", "web_search", "calculator"]
    assert (prefix.prediction, prefix.match, prefix.generated) == (
        "calculator",
        "prefix",
        "`calculator_tool`",
    )
    # the tokens that spell it ("calc", "ulator"); the others from the answer position (after the backtick)
    assert prefix.scores == pytest.approx({"calculator": -2.3, "web_search": -2.0, "email": -4.0})
    # the prediction ranks first even below another candidate's bound
    assert prefix.ranking == ["calculator", "web_search", "email"] and prefix.first_tokens_unique


def test_the_longest_candidate_a_reply_starts_with_wins() -> None:
    turns = [str(i) for i in range(1, 13)]
    assert match_candidate("12", turns) == ("12", "exact")
    assert match_candidate(" '12'. ", turns) == ("12", "exact")
    assert match_candidate("12, the fact", turns) == ("12", "prefix")
    assert match_candidate("Approved.", ["approve", "deny"]) == ("approve", "prefix")
    assert match_candidate("I would deny it", ["approve", "deny"]) == (None, "none")


def _run(server: OllamaFixtureServer, out: Path, limit: int | None = None) -> tuple[int, int]:
    items = _items()
    split = assign_split("command_approval", items, 4)
    model = OllamaLabelModel(TAG, host=server.url, retry=FAST)
    try:
        s = run_task(model, Identity("llama3.2-3b", params_b=3.2), "command_approval", "terse", items, split, 4, out, limit=limit)  # fmt: skip
    finally:
        model.close()
    return s.scored, s.skipped


APPROVAL_REPLIES: dict[str, list[ScriptedToken]] = {
    "ls -la": [("approve", -0.1, {"approve": -0.1, "deny": -2.5})],
    "rm -rf ~/x": [("deny", -0.2, {"deny": -0.2, "approve": -1.9})],
    "git status": [("I", -0.4, {"I": -0.4, "approve": -1.2, "deny": -3.0}), (" think so", -0.3, {})],
    "sudo su": [("approve", -0.7, {"approve": -0.7, "deny": -0.9})],
}


def test_unparseable_output_is_recorded_and_counted_wrong(tmp_path: Path) -> None:
    out = tmp_path / "run.jsonl"
    with serve("ok", replies=_by_item(APPROVAL_REPLIES, "Command:\n")) as server:
        _run(server, out)
    record = {r.id: r for r in read_run(out).items}["c2"]
    assert record.prediction == record.generated == "I think so" and record.match == "none"
    assert not record.valid and not record.correct and record.label == "approve"
    assert record.scores == {"approve": -1.2, "deny": -3.0} and record.ranking == ["approve", "deny"]
    assert record.first_tokens_unique  # both labels matched distinct entries at the answer position
    assert read_run(out).items[0].valid and read_run(out).items[0].correct


def test_an_ollama_run_reads_back_and_resumes(tmp_path: Path) -> None:
    out = tmp_path / "llama3.2-3b" / "command_approval_terse.jsonl"
    with serve("ok", replies=_by_item(APPROVAL_REPLIES, "Command:\n")) as server:
        assert _run(server, out, limit=2) == (2, 0)
        assert len(server.seen("/api/chat")) == 2
        assert _run(server, out) == (2, 2)
        assert len(server.seen("/api/chat")) == 4  # the recorded items were not asked again
        assert _run(server, out) == (0, 4)
    run = read_run(out)
    h = run.header
    assert (h.scoring, h.cache_check, h.model, h.weights_sha256) == (
        OLLAMA_SCORING_RULE,
        None,
        "llama3.2-3b",
        None,
    )
    digest = {m["model"]: m["digest"] for m in recorded("tags")["models"]}["llama3.2:latest"]
    assert (h.backend["backend"], h.backend["digest"], h.backend["server_version"]) == (
        "ollama",
        digest,
        "0.5.1",
    )
    assert h.backend["scoring_options"] == {"temperature": 0.0, "seed": 0, "top_logprobs": 20}
    assert [r.id for r in run.items] == ["c0", "c1", "c2", "c3"]
    assert [(r.prediction, r.correct) for r in run.items] == [
        ("approve", True), ("deny", True), ("I think so", False), ("approve", False)
    ]  # fmt: skip
    assert run.items[3].margin == pytest.approx(0.2) and all(r.n_evals == 1 for r in run.items)


def test_a_resumed_ollama_run_refuses_another_model_digest(tmp_path: Path) -> None:
    out = tmp_path / "run.jsonl"
    with serve("ok", replies=_by_item(APPROVAL_REPLIES, "Command:\n")) as server:
        _run(server, out, limit=1)
        lines = out.read_text().splitlines()
        digest = read_run(out).header.backend["digest"]
        out.write_text("\n".join([lines[0].replace(digest, "0" * 64), *lines[1:]]) + "\n")
        with pytest.raises(RunRecordError, match="backend.digest differ"):
            _run(server, out)


def _ollama_config(tmp_path: Path) -> Path:
    data = yaml.safe_load((ROOT / "config.yaml").read_text())
    data["models"]["llama3.2-3b"] = {
        "backend": "ollama",
        "params_b": 3.2,
        "instruct": True,
        "ollama_tag": TAG,
    }
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def test_a_dead_server_fails_before_any_record_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from slmbench.eligibility.cli import open_model

    config = _ollama_config(tmp_path)
    data, bfcl = data_dir(tmp_path)
    out = tmp_path / "raw" / "llama3.2-3b" / "command_approval_terse.jsonl"
    with serve("refuse") as dead:
        monkeypatch.setenv("OLLAMA_HOST", dead.url)
        with pytest.raises(
            click.ClickException, match=rf"llama3\.2-3b: ollama server at {dead.url} .*'{TAG}'"
        ):
            open_model(config, "llama3.2-3b", "shipped", None, None)
        args = ["eligibility", "run", "--model", "llama3.2-3b", "--task", "command_approval", "--prompt", "terse",
                "--config", str(config), "--data-dir", str(data), "--bfcl-dir", str(bfcl), "--out", str(out)]  # fmt: skip
        result = CliRunner().invoke(main, args)
        assert result.exit_code != 0 and dead.url in result.output and "llama3.2-3b" in result.output
        with pytest.raises(BackendError):
            _run(dead, out)
    assert not out.parent.exists()


def test_an_ollama_model_has_no_weights_or_variants(tmp_path: Path) -> None:
    from slmbench.eligibility.cli import open_model

    config = _ollama_config(tmp_path)
    with pytest.raises(click.UsageError, match="served by Ollama"):
        open_model(config, "llama3.2-3b", "Q2_K", None, None)
