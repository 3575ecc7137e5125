"""The topic's tables and the runs' selections: one answer row per run item beside the baseline's, and each
run's selection picks exactly its own rows."""

import pytest
from tests.fixtures.eligibility import study_numbers, synthetic_baselines, synthetic_runs

from slmbench.analysis.selection import select_trials
from slmbench.analysis.topics.eligibility import EligibilityInputError
from slmbench.analysis.topics.eligibility.items import answer_table, baseline_index, index_runs
from slmbench.analysis.topics.eligibility.runs import runs_of


def test_each_run_selects_exactly_its_items() -> None:
    base = baseline_index(synthetic_baselines())
    indexed = index_runs(synthetic_runs(quant_b=True), base)
    answers = answer_table(indexed, base)
    assert len(answers) == sum(len(run["items"]) for run in indexed.values())
    for run in runs_of(answers, indexed):
        raw = indexed[(run.model, run.prompt, run.quant, run.task)]
        assert list(run.answers.rows["id"]) == [r["id"] for r in raw["items"]]
        assert len(select_trials(answers, run.test.selection)) == sum(
            r["split"] == "test" for r in raw["items"]
        )
        assert run.test.selection["file"] == raw["file"] and run.test.selection["split"] == "test"
        assert not run.calibration.rows["in_prompt"].any()


def test_inputs_must_agree_with_the_baselines() -> None:
    runs = synthetic_runs()
    runs[0]["items"][0]["label"] = "deny"
    with pytest.raises(EligibilityInputError, match="differs from the baselines"):
        study_numbers(runs)
    runs = synthetic_runs()
    runs[0]["items"][0]["id"] = "nowhere"
    with pytest.raises(EligibilityInputError, match="item nowhere has no baseline prediction"):
        study_numbers(runs)
    with pytest.raises(EligibilityInputError, match="repeats the configuration"):
        study_numbers([*synthetic_runs(), synthetic_runs()[0]])
    with pytest.raises(EligibilityInputError, match="no baseline predictions for task reranking"):
        study_numbers(
            synthetic_runs(),
            {"tasks": {"command_approval": synthetic_baselines()["tasks"]["command_approval"]}},
        )
