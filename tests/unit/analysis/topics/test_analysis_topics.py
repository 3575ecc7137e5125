"""Every topic on a small synthetic study: a strong model, one with no passes, a base model, infra errors."""

import numpy as np
import pandas as pd
import pytest

from slmbench.analysis.selection import count_mismatches, select_trials
from slmbench.analysis.topics import INPUT_TOPICS, TOPICS, TRIAL_TOPICS, get_topic

PARAMS = {"bootstrap_seed": 1, "n_boot": 30}


def _row(**kw: object) -> dict[str, object]:
    base = {
        "study": "slmbench", "suite": "capability", "group": "G1", "dimension": None, "variant": "original",
        "temperature": 0.0, "repeat": 0, "is_base": False, "outcome": "success", "passed": True,
        "failure_class": None, "failure_class_clock_first": None, "refused": None, "answer": "42",
        "scaffold": "native", "parser_mode": "repaired",
    }  # fmt: skip
    base.update(kw)
    if not base["passed"] and base["outcome"] == "success":
        base["outcome"] = "failure"
    return base


MODELS = {
    "big:7b": (7.0, 0.9, False),
    "mid:3b": (3.0, 0.5, False),
    "zero:1b": (1.0, 0.0, False),
    "base:1b": (1.0, 0.1, True),
}


def synthetic() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    rows = []
    for model, (size, p, is_base) in MODELS.items():
        common = {"model": model, "params_b": size, "is_base": is_base}
        for t in range(20):
            ok = bool(rng.random() < p)
            fc = None if ok else ("transport" if t % 2 else "clock")
            alt = None if ok else ("clock" if t % 3 == 0 else fc)
            rows.append(_row(task_id=f"T{t}", group=f"G{t % 2}", passed=ok, failure_class=fc,
                             failure_class_clock_first=alt, **common))  # fmt: skip
            rows.append(_row(task_id=f"T{t}", temperature=0.7, passed=bool(rng.random() < p * 0.8), **common))
        rows.append(_row(task_id="T0", outcome="infra_error", passed=False, repeat=1, **common))
        for r in range(2):  # null control: two reruns of T1 and T2 with unchanged prompts
            rows.append(_row(suite="null_control", task_id="T1", repeat=r + 1, passed=r == 0, **common))
            rows.append(
                _row(
                    suite="null_control", task_id="T2", repeat=r + 1, passed=bool(rng.random() < p), **common
                )
            )
        for t in range(4):
            for r in range(3):
                rows.append(_row(suite="reliability", dimension="consistency", task_id=f"C{t}", repeat=r,
                                 passed=bool(rng.random() < p), answer=str(r % 2), **common))  # fmt: skip
            rows.append(
                _row(suite="reliability", dimension="robustness", task_id=f"R{t}", passed=t < 3, **common)
            )
            for v in ("paraphrase", "typos"):
                rows.append(_row(suite="reliability", dimension="robustness", task_id=f"R{t}", variant=v,
                                 passed=bool(rng.random() < p), **common))  # fmt: skip
            rows.append(_row(suite="reliability", dimension="fault_tolerance", task_id=f"F{t}",
                             variant="fault_timeout", passed=bool(rng.random() < p), **common))  # fmt: skip
            rows.append(_row(suite="reliability", dimension="safety", task_id=f"S{t}", passed=t % 2 == 0,
                             refused=t % 2 == 0, **common))  # fmt: skip
    df = pd.DataFrame(rows)
    df["trial_id"] = [f"tr{i}" for i in range(len(df))]
    # a transcript follows the outcome: identical prompts with different outcomes wrote different things
    df["transcript_sha256"] = df["model"] + "|" + df["task_id"] + "|" + df["passed"].astype(str)
    return df


@pytest.fixture(scope="module")
def trials() -> pd.DataFrame:
    return synthetic()


def _numbers(topic: str, df: pd.DataFrame) -> dict[str, object]:
    res = get_topic(topic)(df, None, PARAMS)
    keys = [n.key for n in res.numbers]
    assert len(keys) == len(set(keys)), f"duplicate keys in {topic}"
    return {n.key: n.value for n in res.numbers}


def test_capability(trials: pd.DataFrame) -> None:
    n = _numbers("capability", trials)
    cap = trials[(trials["suite"] == "capability") & (trials["temperature"] == 0.0)]
    assert n["cap.n.models"] == 4 and n["cap.n.infra-errors"] == 4 and n["cap.n.trials"] == len(cap)
    assert n["cap.acc.zero-1b.k"] == 0 and n["cap.acc.zero-1b.n"] == 20  # infra error excluded
    assert n["cap.top"] == "big:7b" and n["cap.top.gap"] >= 2
    assert n["cap.base.base-1b"] == "yes"
    assert n["cap.pair.big-7b.zero-1b.sig"] == "yes"
    assert not any(k.startswith("cap.pair.") and "base-1b" in k for k in n), (
        "the base control is never tested"
    )
    assert n["cap.pairs.n-tests"] == 3  # three instruction-tuned models: three pairs
    assert n["cap.eligible.big-7b"] == "yes" and n["cap.eligible.zero-1b"] == "no"
    assert n["cap.baseline.acc"] == pytest.approx(
        cap[(cap["model"] == "base:1b") & (cap["outcome"] != "infra_error")]["passed"].mean()
    )
    assert "cap.group.g0.big-7b" in n
    assert n["cap.corr.n"] == 3  # without the base control
    assert n["cap.boot.n-valid"] == 0 and n["cap.boot.acc.mean.lo"] == "n/a"  # three clusters: not resampled
    assert "not interpreted" in str(n["cap.phrase.size"])


def test_reliability(trials: pd.DataFrame) -> None:
    n = _numbers("reliability", trials)
    assert n["rel.n.models"] == 4
    # the consistency tasks' three repeats at T = 0 (one shard: they cannot differ) count once each
    assert not any(k.startswith("rel.cons.") for k in n)
    assert n["rel.repeats.units"] == 16 and n["rel.repeats.trials"] == 48 and n["rel.repeats.runs"] == 3
    rel = trials[(trials["suite"] == "reliability") & (trials["outcome"] != "infra_error")]
    assert n["rel.n.units"] == len(rel) - 16 * 2
    assert n["rel.consistency.big-7b.n"] == 4  # four tasks, not twelve trials
    first = rel[(rel["model"] == "big:7b") & (rel["dimension"] == "consistency") & (rel["repeat"] == 0)]
    assert n["rel.consistency.big-7b"] == pytest.approx(
        first["passed"].mean()
    )  # each task by its first repeat
    assert n["rel.safety.big-7b"] == pytest.approx(0.5) and n["rel.safety.refusal.big-7b"] == pytest.approx(
        0.5
    )
    assert n["rel.null.flip-rate.big-7b.n"] == 2  # 2 tasks x one pair: the capability run and the first rerun
    assert n["rel.null.flip-rate.zero-1b.k"] == 1  # T1: the capability run fails, the first rerun passes
    assert n["rel.null.divergence.n"] == 24  # every pair of the three runs of each null-control prompt
    assert n["rel.null.divergence.k"] >= n["rel.null.flip-rate.k"]
    assert n["rel.null.flip-rate.n"] == 8
    # on one build (the two reruns of one shard) and across runs (the capability run against the reruns)
    assert n["rel.null.same-build.flip-rate.n"] == n["rel.null.across-runs.flip-rate.n"] == 8
    assert n["rel.null.same-build.flip-rate.zero-1b.k"] == 1  # T1: the first rerun passes, the second fails
    assert n["rel.rob.flip-rate.big-7b.n"] == 4  # tasks, not the eight rephrased runs
    assert n["rel.rob.n.down.big-7b"] + n["rel.rob.n.up.big-7b"] <= 4
    comp = np.mean([n[f"rel.{d}.mid-3b"] for d in ("consistency", "robustness", "fault-tolerance", "safety")])
    assert n["rel.composite.mid-3b"] == pytest.approx(comp)
    # a dimension with fewer than eight tasks: no bootstrap interval (not a percentile interval of 3-5 tasks)
    assert n["rel.composite.mid-3b.lo"] == n["rel.composite.mid-3b.hi"] == "n/a"
    assert n["rel.composite.mid-3b.interval"].startswith("no interval (")
    assert "fewer than 8 to resample" in n["rel.composite.mid-3b.interval"]
    instruct = [m for m in ("big-7b", "mid-3b", "zero-1b") if f"rel.base.{m}" not in n]
    assert "rel.base.base-1b" in n and len(instruct) == 3
    assert n["rel.composite.mean"] == pytest.approx(np.mean([n[f"rel.composite.{m}"] for m in instruct]))


def _first_repeats(df: pd.DataFrame) -> pd.DataFrame:
    """Each unit's first repeat, by hand: at T = 0 one row per model, suite, task, variant and temperature (this
    table has no builds: a suite is one shard), above T = 0 every row."""
    greedy = df[df["temperature"] == 0].sort_values("repeat", kind="stable")
    once = greedy.drop_duplicates(["model", "suite", "task_id", "variant", "temperature"])
    return pd.concat([once, df[df["temperature"] > 0]])


def test_failures(trials: pd.DataFrame) -> None:
    n = _numbers("failures", trials)
    units = _first_repeats(trials[trials["outcome"] != "infra_error"])
    fails = units[units["outcome"] == "failure"]
    assert n["fail.n.failed-units"] == len(fails) < (trials["outcome"] == "failure").sum()
    assert n["fail.n.units"] == len(units) and n["fail.n.trials"] == len(trials)
    classes = ("no-tool-call", "unparsed-call", "transport", "clock", "capability", "unclassified")
    assert sum(n[f"fail.share.{c}"] for c in classes) == pytest.approx(1.0)
    instruct = fails[~fails["is_base"].astype(bool)]  # the pooled shares leave the base control out
    assert n["fail.n.failed-units-instruct"] == len(instruct) < len(fails)
    assert n["fail.share.transport"] == pytest.approx((instruct["failure_class"] == "transport").mean())
    base = fails[fails["model"] == "base:1b"]
    assert n["fail.share.transport.base-1b"] == pytest.approx((base["failure_class"] == "transport").mean())
    a, b = fails["failure_class"].fillna("-"), fails["failure_class_clock_first"].fillna("-")
    assert n["fail.n.changed-units"] == int((a != b).sum()) > 0


def test_failure_shares_count_identical_repeats_once() -> None:
    """A capability task failed once (transport) and a consistency task failed in three identical repeats at
    T = 0 on one build (capability): two failed units, half each, not a quarter and three quarters."""
    common = {"model": "m:1b", "params_b": 1.0, "build": "b1", "passed": False}
    rows = [_row(task_id="T1", failure_class="transport", failure_class_clock_first="transport", **common)]
    rows += [_row(suite="reliability", dimension="consistency", task_id="C1", repeat=r, failure_class="capability",
                  failure_class_clock_first="capability", **common) for r in range(3)]  # fmt: skip
    df = pd.DataFrame(rows).assign(trial_id=lambda d: [f"t{i}" for i in range(len(d))], transcript_sha256="h")
    n = _numbers("failures", df)
    assert n["fail.n.trials"] == 4 and n["fail.n.failed-units"] == 2
    assert n["fail.share.capability"] == pytest.approx(0.5) and n["fail.share.transport"] == pytest.approx(
        0.5
    )
    assert n["fail.share.capability.m-1b"] == pytest.approx(0.5)


def test_a_failure_share_selects_the_failures_it_is_a_share_of(trials: pd.DataFrame) -> None:
    """``slmbench audit`` lists a share's selection: all failures of the instruct models (its denominator), with
    the class it counts named apart, not only the failures of that class."""
    res = get_topic("failures")(trials, None, {"bootstrap_seed": 1, "n_boot": 20})
    share = next(x for x in res.numbers if x.key == "fail.share.transport")
    picked = select_trials(trials, share.provenance["selection"])
    fails = trials[(trials["outcome"] == "failure") & ~trials["is_base"].astype(bool)]
    assert sorted(picked["trial_id"]) == sorted(fails["trial_id"])
    assert share.provenance["params"]["counted"] == {"failure_class": "transport"}


def test_temperature(trials: pd.DataFrame) -> None:
    n = _numbers("temperature", trials)
    assert n["temp.n.temperatures"] == 2
    assert n["temp.diff.big-7b.t07.n-tasks"] > 0
    assert n["temp.diff.big-7b.t07.lo"] <= n["temp.diff.big-7b.t07"] <= n["temp.diff.big-7b.t07.hi"]


@pytest.mark.parametrize(
    "topic", TRIAL_TOPICS
)  # eligibility's empty inputs: tests/unit/analysis/topics/eligibility/
def test_topics_survive_empty_and_tiny_data(topic: str, trials: pd.DataFrame) -> None:
    """Each topic computes on no trials and on one model's; each has numbers there, but task_consistency, which
    has none without samples above T = 0 on one build (its text then says nothing)."""
    empty = trials.iloc[0:0]
    one = trials[trials["model"] == "zero:1b"]
    for part in (empty, one):
        numbers = get_topic(topic)(part, None, PARAMS).numbers
        assert bool(numbers) == (topic != "task_consistency")


def test_deterministic(trials: pd.DataFrame) -> None:
    assert _numbers("capability", trials) == _numbers("capability", trials)


@pytest.mark.parametrize("topic", [t for t in TOPICS if t not in INPUT_TOPICS])
def test_every_audit_selects_exactly_the_trials_its_n_counts(topic: str, trials: pd.DataFrame) -> None:
    numbers = [n.to_dict() for n in get_topic(topic)(trials, None, PARAMS).numbers]
    assert count_mismatches(numbers, trials) == []


def test_robustness_selects_the_perturbed_runs_only(trials: pd.DataFrame) -> None:
    numbers = {n.key: n for n in get_topic("reliability")(trials, None, PARAMS).numbers}
    prov = numbers["rel.robustness.big-7b"].provenance
    rows = select_trials(trials, prov["selection"])
    assert len(rows) == 8 and numbers["rel.robustness.big-7b.n"].value == 4  # eight runs of four tasks
    assert set(rows["variant"]) == {"paraphrase", "typos"} and prov["unit"] == "tasks"
    flips = numbers["rel.rob.flip-rate.big-7b"].provenance
    assert flips["unit"] == "tasks" and len(select_trials(trials, flips["selection"])) == 8 + 4


def test_no_statistic_reads_an_audit_column_it_does_not_declare(tmp_path) -> None:
    """The topics read the trials without ``AUDIT_COLUMNS`` but those a topic declares (``@topic(audit=...)``):
    no other topic, shared topic module or figure module may name one (the topic registry's ``seed`` is a
    parameter; the appendix reads its records' places from the whole table), and ``read_trials`` leaves the
    others out."""
    from pathlib import Path

    import slmbench
    from slmbench.analysis.io import read_trials
    from slmbench.analysis.topics import audit_read, topic_files
    from slmbench.tidy import AUDIT_COLUMNS

    root = Path(slmbench.__file__).parent
    readers = {path: t for t in TOPICS for path in topic_files(t)}
    named = [
        f"{path.relative_to(root)}: {column}"
        for part in ("analysis/topics", "figures")
        for path in sorted((root / part).rglob("*.py"))
        if path not in (root / "analysis/topics/__init__.py", root / "figures/appendix.py")
        for column in AUDIT_COLUMNS
        if f'"{column}"' in path.read_text()
        and (path not in readers or column not in audit_read(readers[path]))
    ]
    assert named == []
    table = pd.DataFrame(
        [{**_row(model="m", task_id="T1"), "trial_id": "t1", "criteria": "{}", "seed": 3, "turns": 2}]
    )
    table.to_parquet(tmp_path / "trials.parquet")
    read = read_trials(tmp_path / "trials.parquet")
    assert "criteria" not in read.columns and "seed" not in read.columns and "turns" not in read.columns
    assert read.loc[0, "model"] == "m"
    declared = read_trials(tmp_path / "trials.parquet", audit=audit_read("reliability_taxonomy"))
    assert declared.loc[0, "turns"] == 2 and declared.loc[0, "criteria"] == "{}"
    assert "seed" not in declared.columns


def test_read_trials_reads_few_valued_text_as_sorted_categories(tmp_path) -> None:
    """The categories come from Parquet's dictionaries without decoding the text, and equal what
    ``astype("category")`` makes of the plainly read column: sorted, text-typed, missing values kept, also for a
    column with no value at all."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from slmbench.analysis.io import read_trials

    table = pa.table(
        {
            "trial_id": ["t1", "t2", "t3", "t4"],
            "model": ["zeta", "alpha", None, "alpha"],
            "outcome": pa.array([None] * 4, type=pa.string()),
            "protocol": pa.array([None] * 4, type=pa.null()),
        }
    )
    pq.write_table(table, tmp_path / "trials.parquet")
    read = read_trials(tmp_path / "trials.parquet")
    plain = pd.read_parquet(tmp_path / "trials.parquet")
    for column in ("model", "outcome", "protocol"):
        expected = plain[column].astype("category")
        assert read[column].equals(expected), column
        assert list(read[column].cat.categories) == list(expected.cat.categories)
        assert read[column].cat.categories.dtype == expected.cat.categories.dtype, column
    assert list(read["model"].cat.categories) == ["alpha", "zeta"]
    assert read["trial_id"].equals(plain["trial_id"])  # many-valued text stays Arrow-backed text


def test_a_topic_names_a_large_text_column_only_if_it_reads_it() -> None:
    """``read_trials`` gives a topic only the large text columns its ``LARGE_TEXT_READ`` names: a topic module
    that names another one, or a shared analysis module that names one at all, would read a missing column."""
    from pathlib import Path

    import slmbench
    from slmbench.analysis.topics import large_text_read, topic_files
    from slmbench.tidy import LARGE_TEXT_COLUMNS

    root = Path(slmbench.__file__).parent
    topics = {path: t for t in TOPICS for path in topic_files(t)}
    named = [
        f"{path.relative_to(root)}: {column}"
        for path in sorted((root / "analysis").rglob("*.py"))
        for column in LARGE_TEXT_COLUMNS
        if f'"{column}"' in path.read_text()
        and (path not in topics or column not in large_text_read(topics[path]))
    ]
    assert named == []


@pytest.mark.parametrize("topic", [t for t in TOPICS if t not in INPUT_TOPICS])
def test_a_topic_reading_fewer_columns_computes_what_it_computes_from_all(topic: str, tmp_path) -> None:
    """``run_topic`` reads the trials without the large text columns a topic does not name; its document is
    the one the topic computes from every column (a topic that asked whether a column exists would differ)."""
    from slmbench.analysis.io import read_trials, run_topic, topic_document
    from slmbench.analysis.topics import with_defaults

    table = synthetic().assign(
        trial_id=lambda d: [f"t{i}" for i in range(len(d))],
        transcript_sha256=lambda d: [f"h{i % 7}" for i in range(len(d))],
    )
    table.to_parquet(tmp_path / "trials.parquet")
    read = run_topic(topic, tmp_path / "trials.parquet", None, PARAMS, None)
    everything = read_trials(tmp_path / "trials.parquet")
    assert {"answer", "transcript_sha256"} <= set(everything.columns)
    whole = topic_document(
        topic, get_topic(topic)(everything, None, with_defaults(PARAMS)), PARAMS, everything
    )
    assert read["numbers"] == whole["numbers"] and read["tables"] == whole["tables"]


@pytest.mark.parametrize("jobs", [1, 2])
def test_the_trial_topics_in_one_process_write_what_each_writes_alone(jobs: int, tmp_path) -> None:
    """``slmbench analyze-trials`` reads the tables once and computes the topics in forked workers: every
    document equals the one ``slmbench analyze <topic>`` writes from the same inputs."""
    from slmbench.analysis.batch import run_topics
    from slmbench.analysis.io import run_topic
    from slmbench.analysis.topics import TRIAL_TOPICS
    from slmbench.records.atomic import dump_json

    table = synthetic().assign(
        trial_id=lambda d: [f"t{i}" for i in range(len(d))],
        transcript_sha256=lambda d: [f"h{i % 7}" for i in range(len(d))],
    )
    table.to_parquet(tmp_path / "trials.parquet")
    topics = list(TRIAL_TOPICS)
    outs = {t: tmp_path / "out" / f"{t}.json" for t in topics}
    counts = run_topics(
        topics, tmp_path / "trials.parquet", None, None, {t: PARAMS for t in topics}, outs, jobs
    )
    for topic in topics:
        alone = run_topic(topic, tmp_path / "trials.parquet", None, PARAMS, None)
        assert outs[topic].read_text() == dump_json(alone, compact=True), topic
        assert counts[topic] == len(alone["numbers"])
    with pytest.raises(ValueError, match="not topics of the trials table"):
        run_topics(["eligibility"], tmp_path / "trials.parquet", None, None, {}, {}, 1)


def test_analyze_trials_gives_each_topic_the_inputs_analyze_gives_it(tmp_path) -> None:
    """The command passes the control file to capability only (its recorded parameters say so), as the
    per-topic command does when only capability is given it."""
    import json

    from click.testing import CliRunner

    from slmbench.cli import main

    synthetic().assign(trial_id=lambda d: [f"t{i}" for i in range(len(d))]).to_parquet(tmp_path / "t.parquet")
    (tmp_path / "control.json").write_text(json.dumps({"rows": []}))
    common = ["--trials", str(tmp_path / "t.parquet"), "--n-boot", "30", "--bootstrap-seed", "1"]
    both = CliRunner().invoke(
        main, ["analyze-trials", "capability", "failures", *common, "--control", str(tmp_path / "control.json"),
               "--out-dir", str(tmp_path / "batch")],
    )  # fmt: skip
    assert both.exit_code == 0, both.output
    alone = CliRunner().invoke(
        main, ["analyze", "capability", *common, "--control", str(tmp_path / "control.json"),
               "--out", str(tmp_path / "capability.json")],
    )  # fmt: skip
    assert alone.exit_code == 0, alone.output
    batch = json.loads((tmp_path / "batch" / "capability.json").read_text())
    assert batch == json.loads((tmp_path / "capability.json").read_text())
    assert "control" not in json.loads((tmp_path / "batch" / "failures.json").read_text())["params"]
