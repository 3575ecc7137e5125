"""The eligibility study as it is: accuracy on the items the rubric does not quote and on one item per family, the
acknowledgement cue beside the keyword rule, and the reranking answers by position, on synthetic data with
hand-counted answers.

Command approval (see ``tests.fixtures.eligibility``): test items t00-t19, the baseline right on the even ones, m-a
right on t00-t17. Here t00 and t01 are quoted verbatim and t02 in part; t01 rewrites t00 and t03 rewrites t02.
"""

import copy
from typing import Any

import pytest
from tests.fixtures.eligibility import header, item_record, study_numbers, synthetic_baselines, synthetic_runs

from slmbench.analysis.stats_rates import wilson_interval

A = "elig.command-approval.m-a.terse.shipped"


def _baselines() -> dict[str, Any]:
    doc = copy.deepcopy(synthetic_baselines())
    doc["quoting"] = {"min_part_words": 3}
    for row in doc["tasks"]["command_approval"]["items"]:
        row["quoted"] = {"t00": "verbatim", "t01": "verbatim", "t02": "part"}.get(row["id"], "none")
        row["family"] = {"t01": "t00", "t03": "t02"}.get(row["id"], row["id"])
    return doc


def test_unquoted_and_one_per_family() -> None:
    n, tables = study_numbers(synthetic_runs(), _baselines())
    # unquoted: t03-t19 (17); m-a right on t03-t17 (15), the baseline on t04, t06, ..., t18 (8)
    assert (n[f"{A}.unquoted.acc.k"], n[f"{A}.unquoted.acc.n"]) == (15, 17)
    assert n[f"{A}.unquoted.baseline"] == pytest.approx(8 / 17)
    assert n["elig.command-approval.baseline.unquoted.acc"] == pytest.approx(8 / 17)
    # one per family: t00, t02 and t04-t19 (18); m-a right on 16, the baseline on t00, t02 and 8 more (10)
    assert (n[f"{A}.family.acc.k"], n[f"{A}.family.acc.n"]) == (16, 18)
    assert n["elig.command-approval.baseline.family.acc"] == pytest.approx(10 / 18)
    lo = wilson_interval(16, 18).lo
    assert n[f"{A}.family.eligible"] == ("yes" if lo > 10 / 18 else "no")
    # 20 test and 11 calibration items: 2 verbatim, 1 in part, 28 unquoted; 31 items in 29 families
    assert (
        n["elig.command-approval.n.quoted.verbatim"],
        n["elig.command-approval.n.quoted.part"],
        n["elig.command-approval.n.quoted.none"],
    ) == (2, 1, 28)
    assert n["elig.command-approval.n.families"] == 29
    assert n["elig.quoted.min-part-words"] == 3
    row = next(r for r in tables["configs"] if r["key"] == A)
    assert (row["unquoted_n"], row["family_n"]) == (17, 18)
    assert n["elig.phrase.subsets-n"].startswith(
        "command approval: 20 test items, 17 of them unquoted, 18 families"
    )


def test_without_recorded_quoting_no_item_counts_as_unquoted() -> None:
    n, _ = study_numbers(synthetic_runs())  # baselines written before the items' facts were recorded
    assert n[f"{A}.unquoted.acc.n"] == 0 and n["elig.command-approval.n.quoted.none"] == 0
    assert n[f"{A}.family.acc.n"] == 20  # every item its own family
    assert "elig.quoted.min-part-words" not in n  # the text about quoting needs the rule recorded


def _memory() -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Test m0-m3 (save, save, skip, skip), calibration c0 (save), c1 (skip); the keyword rule right on m0 only;
    the cue fires on m0, m1, m3 ('save') and c0, so it is right on m0, m1, m2, c0 and c1."""
    rows: list[dict[str, Any]] = []
    cases: tuple[tuple[str, str, str, bool, str | None], ...] = (
        ("m0", "test", "save", True, "noted"), ("m1", "test", "save", False, "noted"),
        ("m2", "test", "skip", False, None), ("m3", "test", "skip", False, "i'll"),
        ("c0", "calibration", "save", True, "got it"), ("c1", "calibration", "skip", True, None),
    )  # fmt: skip
    for rid, split, label, rule_ok, cue_rule in cases:
        other = "skip" if label == "save" else "save"
        rows.append({
            "id": rid, "split": split, "stratum": f"{label}/x", "label": label,
            "prediction": label if rule_ok else other, "correct": rule_ok, "rule": None, "scores": None,
            "ranking": None, "margin": None, "family": rid, "quoted": "none",
            "cue": "save" if cue_rule else "skip", "cue_rule": cue_rule,
        })  # fmt: skip
    run = [
        item_record(r["id"], r["split"], r["label"], r["label"], margin=1.0, candidates=("save", "skip"))
        for r in rows
    ]
    doc = copy.deepcopy(synthetic_baselines())
    doc["tasks"]["memory_write"] = {
        "baseline": "keyword rule", "cue": "acknowledgement cue", "cue_phrases": ["noted", "i'll"], "items": rows,
    }  # fmt: skip
    runs = [*synthetic_runs(), {"file": "mw", "header": header("memory_write", "m-a"), "items": run}]
    return runs, doc


def test_the_acknowledgement_cue() -> None:
    runs, doc = _memory()
    n, _ = study_numbers(runs, doc)
    t = "elig.memory-write"
    assert n[f"{t}.cue.name"] == "acknowledgement cue" and n[f"{t}.cue.phrases"] == "``noted'', ``i'll''"
    assert (n[f"{t}.cue.acc.k"], n[f"{t}.cue.acc.n"]) == (3, 4)
    assert (n[f"{t}.cue.acc-all.k"], n[f"{t}.cue.acc-all.n"]) == (5, 6)
    assert (n[f"{t}.cue.coverage.k"], n[f"{t}.cue.coverage.n"]) == (4, 6)
    assert (n[f"{t}.cue.coverage-test.k"], n[f"{t}.cue.coverage-test.n"]) == (3, 4)
    assert (n[f"{t}.cue.precision.k"], n[f"{t}.cue.precision.n"]) == (3, 4)  # m3 fires but is skip
    assert (n[f"{t}.cue.vs-rule.n.only-cue"], n[f"{t}.cue.vs-rule.n.only-rule"]) == (2, 0)
    assert n[f"{t}.cue.vs-rule.p"] == pytest.approx(0.5)  # exact McNemar, 2 discordant items
    assert n["elig.memory-write.baseline.acc"] == pytest.approx(1 / 4)
    # the run is right on all four test items, but the Wilson lower bound of 4/4 is below the cue's 3/4
    assert n[f"{t}.m-a.terse.shipped.vs-cue.baseline"] == pytest.approx(0.75)
    assert n[f"{t}.m-a.terse.shipped.vs-cue.eligible"] == "no"
    assert (n[f"{t}.n.beats-cue"], n[f"{t}.n.vs-cue"]) == (0, 1)
    assert "elig.command-approval.cue.acc" not in n  # only a task whose baselines carry the cue


def test_reranking_positions() -> None:
    """The synthetic reranking run answers '1' (right) on the odd test items and '3' on the even ones; every
    gold turn is '1'. Its habit is a tie of 10 and 10 (the lower turn, '1', is the mode); a constant '1' is
    right everywhere; answers and gold agree no more than chance (kappa 0)."""
    n, tables = study_numbers(synthetic_runs())
    k = "elig.reranking.m-a.terse.shipped.pos"
    assert n[f"{k}.mode"] == "1" and n[f"{k}.mode-share"] == pytest.approx(0.5)
    assert (n[f"{k}.constant.acc.k"], n[f"{k}.constant.acc.n"]) == (20, 20)
    assert n[f"{k}.kappa"] == pytest.approx(0.0)
    assert n[f"{k}.debiased.acc.k"] == 10  # the odd items stay '1'; the even ones move among wrong turns
    assert n["elig.reranking.pos.n.debiased"] == 1
    row = tables["positions"][0]
    assert row["positions"] == [
        {"position": "1", "answered": 10, "gold": 20, "correct": 10},
        {"position": "3", "answered": 10, "gold": 0, "correct": 0},
    ]
    assert (n[f"{k}.at.1.answered"], n[f"{k}.at.1.correct"], n[f"{k}.at.1"]) == (10, 10, "10/10")
    assert (n[f"{k}.at.3.answered"], n[f"{k}.at.3.correct"]) == (10, 0) and f"{k}.at.2" not in n
    assert n["elig.reranking.pos.gold.at.1"] == 20 and "elig.reranking.pos.gold.at.3" not in n
    assert n["elig.reranking.pos.n.configs"] == 1 and n["elig.reranking.pos.gold-mode"] == "1"
    assert n["elig.reranking.pos.gold-mode-share"] == pytest.approx(1.0)
    assert n["elig.reranking.pos.n.half-on-one"] == 1 and n["elig.reranking.pos.n.above-chance"] == 0


def test_no_debiased_answer_from_first_token_bounds() -> None:
    """A run scored through Ollama records first-token bounds for the candidates it did not generate: no prior is
    divided out of them, and the counts over debiased runs leave it out."""
    runs = synthetic_runs()
    runs[3]["header"]["scoring"] = "ollama-greedy-toplogprobs-v1"
    n, tables = study_numbers(runs)
    k = "elig.reranking.m-a.terse.shipped.pos"
    assert f"{k}.debiased.acc" not in n and f"{k}.kappa" in n
    assert tables["positions"][0]["debiased_acc"] is None
    assert "elig.reranking.pos.n.debiased" not in n and n["elig.reranking.pos.n.configs"] == 1
