"""The logit scorer against a fake LogitModel: the prefix is evaluated once, margins and trie scores are right."""

import math

import numpy as np
import pytest

from slmbench.eligibility.datasets import ApprovalItem, RerankItem, ToolItem, assign_split
from slmbench.eligibility.models import FakeLogitModel
from slmbench.eligibility.prompts import build_prompt, item_text
from slmbench.eligibility.scorer import ContextTooSmall, LogitModel, Scorer, cache_difference, log_softmax

V = 4096


def _approval() -> list[ApprovalItem]:
    cmds = [("ls -la", "approve"), ("rm -rf ~/x", "deny"), ("git status", "approve"), ("rm -rf /", "deny")]
    return [
        ApprovalItem(id=f"c{i}", command=c, label=lab, category="routine") for i, (c, lab) in enumerate(cmds)
    ]


def _approval_model(**kw: object) -> FakeLogitModel:
    """Deny-ish for commands with rm -rf (deny logit 3), approve-ish otherwise (approve logit 2)."""
    model = FakeLogitModel(**kw)  # type: ignore[arg-type]
    a, d = model.token_id("approve"), model.token_id("deny")

    def logits(text: str) -> np.ndarray:
        v = np.zeros(V, dtype=np.float32)
        if text.endswith("<assistant>"):  # the answer position
            if "rm -rf" in text.rsplit("Command:", 1)[-1]:
                v[d] = 3.0
            else:
                v[a] = 2.0
        return v

    model.logit_fn = logits
    return model


def _scorer(
    model: FakeLogitModel, items: list, task: str = "command_approval", style: str = "terse"
) -> Scorer:
    split = dict.fromkeys((it.id for it in items), "test")
    prompt = build_prompt(task, style, items, split, 1)  # type: ignore[arg-type]
    return Scorer(model, prompt, {"command_approval": "approve", "memory_write": "save"}.get(task))


def test_fake_is_a_logit_model() -> None:
    assert isinstance(FakeLogitModel(), LogitModel)


def test_prefix_evaluated_once_and_only_item_tokens_after() -> None:
    items = _approval()
    model = _approval_model()
    scorer = _scorer(model, items)
    suffix_lens = [
        len(model.tokenize(item_text("command_approval", it) + scorer.tail, first=False)) for it in items
    ]
    for it in items:
        scorer.score(it)
    assert model.n_prefix_evals == scorer.n_prefix_evals == 1
    assert model.n_tokens_evaluated == len(scorer.prefix_tokens) + sum(suffix_lens)
    assert model.n_logit_reads == len(items)  # single-token labels with distinct first tokens: one read each


def test_binary_margin_is_the_logit_difference() -> None:
    items = _approval()
    model = _approval_model()
    scorer = _scorer(model, items)
    got = [scorer.score(it) for it in items]
    assert [s.margin for s in got] == pytest.approx([2.0, -3.0, 2.0, -3.0])
    assert [s.prediction for s in got] == ["approve", "deny", "approve", "deny"]
    expected = float(log_softmax(model.logit_fn("Command: ls<assistant>"))[model.token_id("approve")])
    assert got[0].scores["approve"] == pytest.approx(expected) and got[0].first_tokens_unique


def test_uncached_scoring_matches_cached() -> None:
    items = _approval()
    model = _approval_model()
    scorer = _scorer(model, items)
    assert cache_difference(scorer, items[1], items[0]) == 0.0
    cold = scorer.score(items[2], cached=False)
    assert cold.margin == pytest.approx(scorer.score(items[2]).margin)
    assert model.n_prefix_evals == 2  # each uncached scoring re-evaluated the prefix; cached ones did not


def test_shared_first_tokens_scored_by_joint_log_likelihood() -> None:
    """web_search / web_fetch share "web", "_": one decode each for the two shared nodes, then the last token."""
    model = FakeLogitModel()
    web, sep, search, fetch = (model.token_id(p) for p in ("web", "_", "search", "fetch"))

    def logits(text: str) -> np.ndarray:
        v = np.zeros(V, dtype=np.float32)
        if text.endswith("<assistant>"):
            v[web] = 5.0
        elif text.endswith("<assistant>web"):
            v[sep] = 4.0
        elif text.endswith("<assistant>web_"):
            v[fetch] = 1.0
        return v

    model.logit_fn = logits
    item = ToolItem(
        id="t",
        request="fetch a page",
        tools=["web_search", "web_fetch"],
        label="web_fetch",
        docs={"web_search": "s", "web_fetch": "f"},
    )
    s = _scorer(model, [item], task="tool_selection").score(item)
    shared = log_softmax(logits("<assistant>"))[web] + log_softmax(logits("<assistant>web"))[sep]
    last = log_softmax(logits("<assistant>web_"))
    assert s.scores["web_search"] == pytest.approx(shared + last[search])
    assert s.scores["web_fetch"] == pytest.approx(shared + last[fetch])
    assert s.prediction == "web_fetch" and s.margin is None
    assert s.n_evals == 2 and not s.first_tokens_unique


def test_prefix_candidates_get_their_stop_mass() -> None:
    """Turn "1" is a token prefix of "10": score("1") = log p("1") + log(1 - p("0" | "1"))."""
    model = FakeLogitModel()
    zero = model.token_id("0")

    def logits(text: str) -> np.ndarray:
        v = np.zeros(V, dtype=np.float32)
        if text.endswith("<assistant>1"):
            v[zero] = 2.0
        return v

    model.logit_fn = logits
    item = RerankItem(id="r", query="q", turns=[f"t{i}" for i in range(10)], relevant=9, hard=False)
    s = _scorer(model, [item], task="reranking").score(item)
    root = -math.log(V)
    p0 = math.exp(2.0) / (math.exp(2.0) + V - 1)
    assert s.scores["1"] == pytest.approx(root + math.log(1 - p0))
    assert s.scores["10"] == pytest.approx(root + math.log(p0))
    assert s.scores["2"] == pytest.approx(root)
    assert s.prediction == "2" and s.ranking[:2] == ["2", "3"]  # ties: earlier candidate first
    assert s.n_evals == 1  # only the shared "1" node needed a decode


def test_plain_format_scores_labels_after_a_space() -> None:
    seen: list[str] = []
    model = FakeLogitModel(chat=False)
    space, a, d = model.token_id(" "), model.token_id("approve"), model.token_id("deny")

    def logits(text: str) -> np.ndarray:
        seen.append(text)
        v = np.zeros(V, dtype=np.float32)
        v[space] = 1.0
        if text.endswith("Assistant: "):
            v[a], v[d] = 0.5, 1.5
        return v

    model.logit_fn = logits
    items = _approval()[:1]
    scorer = _scorer(model, items)
    s = scorer.score(items[0])
    assert model.answer_prefix == " " and seen[0].endswith("Assistant:")
    assert s.margin == pytest.approx(-1.0) and s.n_evals == 1  # " approve" and " deny" share the space token
    assert scorer.prefix_tokens[0] == FakeLogitModel.BOS


def test_item_too_long_for_the_context() -> None:
    items = _approval()
    scorer = _scorer(_approval_model(n_ctx=40), items)
    with pytest.raises(ContextTooSmall, match="c0 needs"):
        scorer.score(items[0])


def test_split_helper_rejects_templates_that_drop_the_item() -> None:
    class Dropping(FakeLogitModel):
        def render(self, user_text: str) -> str:
            return "<user>fixed</user><assistant>"

    items = _approval()
    with pytest.raises(ValueError, match="placeholder"):
        _scorer(Dropping(), items)


def test_split_assignment_used_by_scorer_fixture_is_complete() -> None:
    items = _approval()
    assert set(assign_split("command_approval", items, 1)) == {it.id for it in items}
