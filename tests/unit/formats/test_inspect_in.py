"""Inspect logs in: logs Inspect wrote (its mock model at two settings) become the records of an imported study,
whose statistics are computed by the ``imported`` topic and checked against independent computations; a file that
is not an Inspect log is one line naming it."""

from __future__ import annotations

import json
import math
import shutil
import zipfile
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner
from inspect_ai.log import read_eval_log
from scipy.stats import binomtest
from statsmodels.stats.proportion import proportion_confint
from tests.fixtures.inspect_logs import EPOCHS, QUESTIONS, TASK, any_arguments, expected_passes

from slmbench.analysis.selection import count_mismatches, select_trials
from slmbench.analysis.topics import get_topic
from slmbench.cli import main
from slmbench.config import load_config
from slmbench.formats.errors import FormatError
from slmbench.formats.inspect_in import import_inspect
from slmbench.records import schema as rec
from slmbench.records.ledger import iter_records
from slmbench.tidy import raw_shards, tidy_tables

ROOT = Path(__file__).resolve().parents[3]
STUDY = "tiny-study"
PARAMS = {"bootstrap_seed": 1, "n_boot": 30}


@pytest.fixture(scope="module")
def study(inspect_logs: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The imported study's raw folder, ``<root>/data/raw/tiny-study``."""
    out = tmp_path_factory.mktemp("imported") / "data" / "raw" / STUDY
    written = import_inspect(sorted(inspect_logs.values()), out)
    assert sum(written.values()) == 2 * len(QUESTIONS) * EPOCHS
    return out


@pytest.fixture(scope="module")
def records(study: Path) -> list[rec.TrialRecord]:
    return [r for path in sorted(study.rglob("*.jsonl")) for _, r in iter_records(path)]


@pytest.fixture(scope="module")
def trials(study: Path) -> pd.DataFrame:
    table, _, _ = tidy_tables(
        raw_shards(study.parent), load_config(ROOT / "config.yaml"), None, study.parents[2]
    )
    return table.to_pandas()


def test_each_sample_and_epoch_is_a_trial(
    records: list[rec.TrialRecord], inspect_logs: dict[str, Path]
) -> None:
    assert len({r.trial_id for r in records}) == len(records) == 18
    for name, path in inspect_logs.items():
        log = read_eval_log(str(path))
        mine = {(r.task_id, r.repeat): r for r in records if r.model == f"mockllm-{name}"}
        assert len(mine) == len(log.samples or [])
        for sample in log.samples or []:
            record = mine[(str(sample.id), sample.epoch - 1)]
            assert record.study == STUDY and record.suite == TASK and record.model == f"mockllm-{name}"
            score = (sample.scores or {})["includes"].value
            assert record.outcome == ("success" if score == "C" else "failure")
            assert record.temperature == 0.0 and record.seed == 7
            calls = [e for e in record.events if isinstance(e, rec.ToolCallEvent)]
            results = [e for e in record.events if isinstance(e, rec.ToolResultEvent)]
            sent = [c for m in sample.messages for c in getattr(m, "tool_calls", None) or []]
            assert [(c.call_id, c.name, c.arguments) for c in calls] == [
                (c.id, c.function, c.arguments) for c in sent
            ]
            assert [r.call_id for r in results] == [c.id for c in sent] and all(r.ok for r in results)
            answer = next(e for e in record.events if isinstance(e, rec.FinalAnswerEvent))
            assert answer.text == sample.output.completion
            assert record.provenance["imported"]["input"] == sample.input
    weak = read_eval_log(str(inspect_logs["weak"]))
    first = next(r for r in records if r.model == "mockllm-weak" and r.task_id == str(weak.samples[0].id))  # type: ignore[index]
    assert next(e for e in first.events if isinstance(e, rec.ToolCallEvent)).arguments == any_arguments(weak)


def test_tidy_keeps_the_verdicts_the_logs_gave(trials: pd.DataFrame) -> None:
    assert len(trials) == 18 and set(trials["imported_from"]) == {"inspect"}
    assert set(trials["state_source"]) == {"imported"} and not trials["rescored"].any()
    passes = trials.groupby(["model", "task_id"], observed=True)["passed"].sum().to_dict()
    assert passes == {(f"mockllm-{m}", s): n for (m, s), n in expected_passes().items()}


@pytest.fixture(scope="module")
def numbers(trials: pd.DataFrame) -> dict[str, object]:
    result = get_topic("imported")(trials, None, {**PARAMS, "alpha": 0.05})
    return {n.key: n.value for n in result.numbers}


def test_accuracy_per_model_and_task_with_its_wilson_interval(numbers: dict[str, object]) -> None:
    prefix = f"imp.{STUDY}.tiny-tools"
    passes = expected_passes()
    for model in ("strong", "weak"):
        shares = [passes[(model, s)] / EPOCHS for s in QUESTIONS]
        lo, hi = proportion_confint(sum(shares), len(shares), alpha=0.05, method="wilson")
        key = f"{prefix}.acc.mockllm-{model}"
        assert numbers[key] == pytest.approx(sum(shares) / len(shares))
        assert (numbers[f"{key}.lo"], numbers[f"{key}.hi"]) == (pytest.approx(lo), pytest.approx(hi))
        assert numbers[f"{key}.n"] == len(QUESTIONS) * EPOCHS
        assert numbers[f"{key}.k"] == sum(passes[(model, s)] for s in QUESTIONS)
    assert numbers["imp.n.studies"] == 1 and numbers["imp.n.trials"] == 18
    assert "failure classes" in str(numbers[f"imp.{STUDY}.left-out"])


def test_every_audit_selects_exactly_the_trials_its_n_counts(trials: pd.DataFrame) -> None:
    result = get_topic("imported")(trials, None, {**PARAMS, "alpha": 0.05})
    assert count_mismatches([n.to_dict() for n in result.numbers], trials) == []
    weak = next(n for n in result.numbers if n.key == f"imp.{STUDY}.tiny-tools.acc.mockllm-weak")
    assert len(select_trials(trials, weak.provenance["selection"])) == len(QUESTIONS) * EPOCHS


def test_paired_comparison_is_an_exact_mcnemar_on_the_shared_samples(numbers: dict[str, object]) -> None:
    key = f"imp.{STUDY}.tiny-tools.pair.mockllm-strong.mockllm-weak"
    passes = expected_passes()
    ahead = sum(passes[("strong", s)] > passes[("weak", s)] for s in QUESTIONS)
    behind = sum(passes[("strong", s)] < passes[("weak", s)] for s in QUESTIONS)
    p = binomtest(ahead, ahead + behind, 0.5).pvalue
    assert (numbers[f"{key}.first-ahead"], numbers[f"{key}.second-ahead"]) == (ahead, behind) == (2, 0)
    assert numbers[f"{key}.p"] == pytest.approx(p) and numbers[f"{key}.padj"] == pytest.approx(p)  # one pair
    assert numbers[f"{key}.n-samples"] == len(QUESTIONS) and numbers[f"{key}.sig"] == "no"


def test_pass_at_k_and_pass_hat_k_over_the_epochs(numbers: dict[str, object]) -> None:
    prefix = f"imp.{STUDY}.tiny-tools"
    passes = expected_passes()
    for model in ("strong", "weak"):
        counts = [passes[(model, s)] for s in QUESTIONS]
        at_k = sum(1 - math.comb(EPOCHS - c, EPOCHS) / math.comb(EPOCHS, EPOCHS) for c in counts) / len(
            counts
        )
        hat_k = sum(math.comb(c, EPOCHS) / math.comb(EPOCHS, EPOCHS) for c in counts) / len(counts)
        assert numbers[f"{prefix}.k.mockllm-{model}"] == EPOCHS
        assert numbers[f"{prefix}.pass-at-k.mockllm-{model}"] == pytest.approx(at_k)
        assert numbers[f"{prefix}.pass-hat-k.mockllm-{model}"] == pytest.approx(hat_k)
    assert numbers[f"{prefix}.pass-hat-k.mockllm-weak"] == pytest.approx(1 / 3)


def test_a_second_import_of_the_same_logs_writes_the_same_files(
    study: Path, inspect_logs: dict[str, Path], tmp_path: Path
) -> None:
    again = tmp_path / STUDY
    import_inspect(sorted(inspect_logs.values()), again)
    for path in sorted(study.rglob("*.jsonl")):
        assert (again / path.relative_to(study)).read_bytes() == path.read_bytes()


def _corrupt_files(inspect_logs: dict[str, Path], folder: Path) -> list[Path]:
    """A file of text, a truncated log, a zip that is no log, a JSON file that is no log, and no file at all."""
    text = folder / "notes.eval"
    text.write_text("not an eval log\n")
    truncated = folder / "truncated.eval"
    truncated.write_bytes(inspect_logs["strong"].read_bytes()[:2000])
    other_zip = folder / "other.eval"
    with zipfile.ZipFile(other_zip, "w") as archive:
        archive.writestr("hello.txt", "hello")
    other_json = folder / "other.json"
    other_json.write_text(json.dumps({"hello": "world"}))
    return [text, truncated, other_zip, other_json, folder / "missing.eval"]


def test_a_file_that_is_no_inspect_log_is_one_error_naming_it(
    inspect_logs: dict[str, Path], tmp_path: Path
) -> None:
    for bad in _corrupt_files(inspect_logs, tmp_path):
        out = tmp_path / "data" / "raw" / "broken"
        with pytest.raises(FormatError) as caught:
            import_inspect([inspect_logs["strong"], bad], out)
        message = str(caught.value)
        assert message.startswith(f"{bad}: ") and "\n" not in message
        assert not out.exists()  # nothing written when one file is bad
        result = CliRunner().invoke(main, ["import", "inspect", str(bad), "--out", str(out)])
        assert result.exit_code == 2, result.output
        assert "Traceback" not in result.output
        assert [line for line in result.output.splitlines() if line.startswith("Error:")] == [
            f"Error: {message}"
        ]


def test_a_study_folder_must_be_an_imported_studys(inspect_logs: dict[str, Path], tmp_path: Path) -> None:
    for name in ("slmbench", "eligibility", "Not A Name"):
        with pytest.raises(FormatError, match="its own folder"):
            import_inspect([inspect_logs["strong"]], tmp_path / name)


def test_the_command_imports_and_the_site_links_numbers_to_the_transcripts(
    inspect_logs: dict[str, Path], tmp_path: Path
) -> None:
    from slmbench.analysis.io import topic_document
    from slmbench.records.atomic import dump_json
    from slmbench.site import build_site

    raw = tmp_path / "data" / "raw"
    args = ["import", "inspect", *map(str, sorted(inspect_logs.values())), "--out", str(raw / STUDY)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    table, _, _ = tidy_tables(raw_shards(raw), load_config(ROOT / "config.yaml"), None, tmp_path)
    trials = table.to_pandas()
    trials.to_parquet(tmp_path / "trials.parquet")
    doc = topic_document("imported", get_topic("imported")(trials, None, PARAMS), PARAMS, trials)
    prov = {"numbers": [{**n, "topic": "imported"} for n in doc["numbers"]], "topics": {"imported": {}}}
    (tmp_path / "provenance.json").write_text(dump_json(prov))
    shutil.rmtree(tmp_path / "site", ignore_errors=True)
    summary = build_site(
        raw, tmp_path / "trials.parquet", tmp_path / "provenance.json", tmp_path / "site", tmp_path
    )
    assert summary.n_transcripts == 18
    page = (tmp_path / "site" / "numbers" / f"imp.{STUDY}.tiny-tools.acc.mockllm-weak.html").read_text()
    assert "9 trials (4 failure, 5 success)" in page
    data = json.loads(page.split('<script type="application/json" id="page-data">')[1].split("</script>")[0])
    positions = [i for start, end in data["ranges"] for i in range(start, end)]
    chosen = trials.iloc[positions]
    assert set(chosen["model"]) == {"mockllm-weak"} and len(chosen) == 9
    chunks = "".join(p.read_text() for p in (tmp_path / "site" / "trials").glob("*.js"))
    assert all(trial_id in chunks for trial_id in chosen["trial_id"])
    assert "What is 4 + 4? Use the add tool." in chunks  # the task as Inspect posed it


def test_our_logs_come_back_in_with_their_outcomes_calls_and_answers(raw_study: Path, tmp_path: Path) -> None:
    """Out and in again: each trial of the exported shards is a trial again, with its outcome, its calls with the
    arguments as the model sent them, and its answer."""
    from slmbench.formats.inspect_out import export_inspect

    out = tmp_path / "data" / "raw" / "round-trip"
    import_inspect(export_inspect(raw_study, tmp_path / "logs"), out)
    back = {(r.model, r.task_id, r.repeat): r for p in out.rglob("*.jsonl") for _, r in iter_records(p)}
    originals = [r for p in sorted(raw_study.rglob("*.jsonl")) for _, r in iter_records(p)]
    assert len(back) == len(originals) == 20

    def calls(record: rec.TrialRecord) -> list[tuple[str, object]]:
        return [(e.name, e.arguments) for e in record.events if isinstance(e, rec.ToolCallEvent)]

    def answer(record: rec.TrialRecord) -> str | None:
        return next((e.text for e in record.events if isinstance(e, rec.FinalAnswerEvent)), None)

    for original in originals:
        again = back[(f"llamacpp-{original.model}", original.task_id, original.repeat)]
        assert again.outcome == original.outcome
        assert calls(again) == calls(original) and answer(again) == answer(original)
