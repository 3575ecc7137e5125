"""The paper's text built from studies other than the project's own, as a user would build them (each a folder
made by `slmbench init`, its config written there), and checked against its study (tests/fixtures/paper_text.py).

No model runs in most of them: their records are the project's committed ones, placed as the records of the
study's own models (tests/fixtures/study_records.py), or a scripted model's, run through the workflow there.

- one GGUF file in-process and the same file behind llama-server (capability, 7 tasks, no base model), its PDF
  built by `snakemake paper` where LaTeX is installed;
- one file under two names, both in-process, with the null control (no model passes or writes a call);
- two models behind two servers only;
- the reliability suite only, with the README's few tasks (two of its four dimensions) and a base model;
- both suites with a base control and no protocol study;
- a scripted model and a scripted base model, their trials run in the folder;
- (``model``) SmolLM2 by path in-process and behind a real llama-server with two trials in flight.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml
from tests.fixtures.paper_text import problems, prose, text_of
from tests.fixtures.study_records import place
from tests.integration.smoke_workdir import snakemake

from slmbench.config import load_config
from slmbench.models.weights import weights_path
from slmbench.paper import Results, StudyFacts, study_facts
from slmbench.study import write_study

ROOT = Path(__file__).resolve().parents[2]
STUDY = load_config(ROOT / "config.yaml")
SMOLLM = STUDY.models["smollm2-135m"]
TEXT = [f"paper/generated/text_{place}.tex" for place in ("abstract", "body", "appendix")]
FULL = {
    "canonical_history": True,
    "stuck_detection": True,
    "answer_channel": True,
    "closing_turn": True,
    "clean_kv": True,
}
BASE: dict[str, Any] = {
    "schema_version": "1.0", "temperatures": [0.0], "scaffold": "native", "parser_mode": "repaired",
    "seed": 20261129, "trial_budget_s": 300, "alpha": 0.05, "bootstrap_resamples": 200,
    "protocols": {"legacy": {}, "full": FULL}, "protocol": "full", "max_turns": 5, "max_tokens": 256,
}  # fmt: skip
SEVEN = ["COD-1", "COM-1", "DA-1", "DM-1", "IR-1", "MSR-1", "SCH-1"]
"""Seven capability tasks, one of each of seven of the suite's eight groups."""
PRIMARY = "capability_T0_native_repaired_p-full"
SERVED = f"{PRIMARY}_srv-llama-server"
RERUN = f"{PRIMARY}_rerun-2"
"""The committed in-process run on the kind of CPU the serving comparison's server ran on."""

pytestmark = [pytest.mark.slow]


def gguf(model: str, path: str) -> dict[str, Any]:
    """A configured model of the project's file ``model`` as a file of the user's own, at ``path``."""
    spec = STUDY.models[model]
    assert spec.weights is not None
    entry = spec.model_dump(exclude_none=True, exclude={"weights", "licence", "family"})
    return {**entry, "weights": {"path": path, "sha256": spec.weights.sha256}}


def served(model: str, port: int) -> dict[str, Any]:
    """The project's file ``model`` behind an OpenAI-compatible server on ``port``."""
    spec = STUDY.models[model]
    return {
        "backend": "openai", "base_url": f"http://127.0.0.1:{port}/v1", "served_model": model,
        "params_b": spec.params_b, "instruct": spec.instruct,
    }  # fmt: skip


def build(
    tmp: Path,
    config: dict[str, Any],
    records: Callable[[Path], object] | None = None,
    *,
    raw: dict[str, list[str]] | None = None,
    run: bool = False,
    targets: tuple[str, ...] = tuple(TEXT),
) -> Path:
    """A study folder made by `slmbench init` (a space in its path) with ``config``, its records placed by
    ``records`` or copied from the committed shards ``raw`` (model -> stems), its trials run when ``run``, and
    ``targets`` built there (its paper text)."""
    work = tmp / "a study"
    write_study(work)
    (work / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    for model, stems in (raw or {}).items():
        (work / "data/raw/slmbench" / model).mkdir(parents=True)
        for stem in stems:
            shutil.copy(
                ROOT / "data/raw/slmbench" / model / f"{stem}.jsonl", work / "data/raw/slmbench" / model
            )
    if records is not None:
        records(work)
    if run:
        trials = snakemake(work, "trials")
        assert trials.returncode == 0, trials.stderr[-4000:]
    text = snakemake(work, *targets)
    assert text.returncode == 0, text.stderr[-4000:]
    inputs = sorted(set(re.findall(r"\\input\{(generated/[a-z_]+)\}", text_of(work / "paper"))))
    tables = snakemake(work, *(f"paper/{name}.tex" for name in inputs))  # what the text inputs: its tables
    assert tables.returncode == 0, tables.stderr[-4000:]
    return work


def facts_of(work: Path) -> StudyFacts:
    results = Results.from_macros(work / "paper/generated/numbers.tex")
    return study_facts(
        load_config(work / "config.yaml"),
        pd.read_parquet(work / "data/processed/trials.parquet"),
        eligibility=results.defined("elig.n.configs") and results.number("elig.n.configs") > 0,
        external=results.defined("ext.n.models") and results.number("ext.n.models") > 0,
    )


def checked(work: Path) -> tuple[StudyFacts, str, Results]:
    """The study's facts, its text and results, its text checked against it."""
    facts = facts_of(work)
    assert problems(work / "paper", load_config(work / "config.yaml"), facts) == []
    return facts, text_of(work / "paper"), Results.from_macros(work / "paper/generated/numbers.tex")


def abstract(text: str) -> str:
    return text[: text.index("\\end{abstract}")]


def left_out(text: str, *sections: str) -> bool:
    return all(f"% section {s}: left out" in text for s in sections)


@pytest.fixture(scope="module")
def one_file_two_ways(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A GGUF file in-process and the same file behind llama-server, capability suite, seven tasks."""
    model = "qwen2.5-coder-0.5b"
    config = {
        **BASE,
        "models": {"my-qwen-gguf": gguf(model, "~/models/qwen.gguf"), "my-qwen-served": served(model, 8080)},
        "suites": ["capability"], "repeats": 1, "tasks": {"capability": SEVEN},
    }  # fmt: skip

    def records(work: Path) -> None:
        place(work, "my-qwen-gguf", f"{model}/{RERUN}", into=PRIMARY, tasks=SEVEN)
        place(work, "my-qwen-served", f"{model}/{SERVED}", into=PRIMARY, tasks=SEVEN, served=True)

    targets = ("paper",) if shutil.which("latexmk") else tuple(TEXT)  # `snakemake paper`, as the README says
    return build(tmp_path_factory.mktemp("twins"), config, records, targets=targets)


def test_one_file_in_process_and_served_is_said_to_be_one_file_and_compared_task_by_task(
    one_file_two_ways: Path,
) -> None:
    facts, text, results = checked(one_file_two_ways)
    assert facts.ran == {"capability", "twins"} and facts.served_pairs == (
        ("my-qwen-gguf", "my-qwen-served"),
    )
    assert "external" not in facts.planned  # no published_studies block: the published study is no part of it
    words = prose(text)
    assert "How capable" in text and "reliab" not in abstract(text).lower()
    assert "in-process on a CPU and behind a server" in words and "model servers" not in words
    assert "The models my-qwen-gguf and my-qwen-served are one file" in words
    assert "served by llama-server (build" in words and "one trial at a time" in words
    assert "\\input{generated/tab_served_twins}" in text and results.number("twin.n.pairs") == 7
    assert "This study runs" in words and "capability suite's" in words  # seven of the suite's tasks
    assert results.number("cap.acc.reference-solutions.n") == 7  # the positive control on the study's tasks
    assert "Prompts differ by model" not in words and "\\begin{enumerate}" in text
    assert left_out(text, "reliability", "protocol", "appendix_reproduction", "appendix_comparisons")
    assert "Fault injection" not in text and "Refusal classifier" not in text
    assert "No transcripts" not in (one_file_two_ways / "paper/generated/transcripts.tex").read_text()
    trials = pd.read_parquet(one_file_two_ways / "data/processed/trials.parquet", columns=["model", "study"])
    assert set(trials["model"]) == {"my-qwen-gguf", "my-qwen-served"} and set(trials["study"]) == {"slmbench"}
    if shutil.which("latexmk"):  # the folder's own paper: nothing of the project's other records enters it
        assert (one_file_two_ways / "paper/main.pdf").stat().st_size > 10_000
        assert not (one_file_two_ways / "figures/fig_external_comparison.pdf").exists()
        assert not (one_file_two_ways / "paper/generated/tab_eligibility.tex").exists()


@pytest.fixture(scope="module")
def one_file_twice(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One file under two names, both in-process, with the null control: no model passes a task or writes a
    call the harness accepts."""
    config = {
        **BASE,
        "models": {"smol-a": gguf("smollm2-135m", "~/m/a.gguf"), "smol-b": gguf("smollm2-135m", "~/m/b.gguf")},
        "suites": ["capability"], "repeats": 1, "tasks": {"capability": SEVEN},
        "null_control": {"tasks": ["IR-1", "SCH-1", "DA-1", "COM-1", "COD-1"], "reruns": 2},
    }  # fmt: skip

    def records(work: Path) -> None:
        for name in ("smol-a", "smol-b"):
            place(work, name, f"smollm2-135m/{RERUN}", into=PRIMARY, tasks=SEVEN)
            place(work, name, "smollm2-135m/null_control_T0_native_repaired_p-full")

    return build(tmp_path_factory.mktemp("twice"), config, records)


def test_a_study_of_nothing_passed_says_so_once_and_leaves_out_what_it_has_not(one_file_twice: Path) -> None:
    facts, text, results = checked(one_file_twice)
    assert facts.ran == {"capability", "null_control"} and facts.same_file == (("smol-a", "smol-b"),)
    words = prose(text)
    assert "neither model passed any of the" in words and "mostly never" not in words
    assert "The models smol-a and smol-b are one file" in words and "\\res{cap.params.min}" not in text
    assert "in-process on a CPU" in words and "behind" not in abstract(words)
    assert left_out(text, "boundary", "comparisons") and "no call to replay" in words
    assert "\\paragraph{Null control.}" in text and "\\res{fail.n.trials.null-control}" in text
    assert results.number("fail.n.trials") == results.number("cap.n.trials") + results.number(
        "fail.n.trials.null-control"
    )
    assert "the harness lists\nthe tools in a system prompt of its own" in text  # neither template took them
    assert "\\begin{enumerate}" not in text  # one finding is no list


@pytest.fixture(scope="module")
def one_model_two_windows(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One model, its configured window and a smaller one on seven tasks, none of which overflows either."""
    model = "smollm2-135m"
    config = {
        **BASE, "models": {model: STUDY.models[model].model_dump(exclude_none=True)}, "suites": ["capability"],
        "repeats": 1, "tasks": {"capability": SEVEN},
        "context_comparison": {"n_ctx": [1024], "suites": ["capability"], "repeats": 1},
    }  # fmt: skip

    def records(work: Path) -> None:
        place(work, model, f"{model}/{RERUN}", into=PRIMARY, tasks=SEVEN)
        place(work, model, f"{model}/capability_T0_native_repaired_ctx1024_p-full", tasks=SEVEN)

    return build(tmp_path_factory.mktemp("window"), config, records)


def test_a_context_comparison_without_an_overflow_says_so(one_model_two_windows: Path) -> None:
    facts, text, results = checked(one_model_two_windows)
    assert facts.ran == {"capability", "context"} and len(facts.models) == 1
    assert results.number("ctx.overflow.other.k") == 0 and not results.defined("ctx.overflow.was-turn-limit")
    assert (
        "no paired trial overflowed either\nwindow" in text
        and "No pair overflowed the smaller window." in text
    )
    assert "\\section{Context window}" in text and "pairs over\n\\res{ctx.n.models} model;" in text
    assert "We run one model of" in text


@pytest.fixture(scope="module")
def one_model_one_suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One GGUF file of the user's, the capability suite only, seven tasks: nothing to compare."""
    model = "qwen2.5-coder-1.5b"
    config = {
        **BASE, "models": {"my-coder": gguf(model, str(weights_path(STUDY.models[model])))},
        "suites": ["capability"], "repeats": 1, "tasks": {"capability": SEVEN},
    }  # fmt: skip
    return build(
        tmp_path_factory.mktemp("solo"),
        config,
        lambda work: place(work, "my-coder", f"{model}/{RERUN}", into=PRIMARY, tasks=SEVEN),
    )


def test_a_study_of_one_model_and_one_suite_speaks_of_one_model_and_compares_nothing(
    one_model_one_suite: Path,
) -> None:
    facts, text, _ = checked(one_model_one_suite)
    assert facts.ran == {"capability"} and len(facts.models) == 1
    assert "The model, and what ran it as its trials' fingerprints record it: my-coder" in text
    assert "\\paragraph{How the model fails.}" in text and "largest model's" not in abstract(text)
    for said_of_comparisons in ("McNemar", "Effect sizes", "Every comparison", "TOST", "few models"):
        assert said_of_comparisons not in text, said_of_comparisons
    assert "fig:accuracy_vs_params" not in text and "fig:latency_vs_accuracy" not in text
    assert "A model that never writes a call" not in text


@pytest.fixture(scope="module")
def served_only(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two files, each behind a server of its own: capability suite, seven tasks."""
    small, large = "qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b"
    config = {
        **BASE, "models": {"small-served": served(small, 8080), "large-served": served(large, 8081)},
        "suites": ["capability"], "repeats": 1, "tasks": {"capability": SEVEN},
    }  # fmt: skip

    def records(work: Path) -> None:
        place(work, "small-served", f"{small}/{SERVED}", into=PRIMARY, tasks=SEVEN, served=True)
        place(work, "large-served", f"{large}/{SERVED}", into=PRIMARY, tasks=SEVEN, served=True)

    return build(tmp_path_factory.mktemp("served"), config, records)


def test_a_study_of_served_models_only_says_where_they_ran(served_only: Path) -> None:
    facts, text, _ = checked(served_only)
    assert facts.ran == {"capability"} and not facts.same_file and not facts.served_pairs
    words = prose(text)
    assert "behind two servers" in words and "in-process on a CPU" not in words
    assert "embedded in the harness process" not in words and "a clean KV state is the\nserver's own" in text
    assert "served model's hardware is its server's" in words
    assert left_out(text, "comparisons", "appendix_comparisons")


@pytest.fixture(scope="module")
def reliability_only(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The reliability suite only, with the README's few tasks (two dimensions), and a base model."""
    tasks = ["REL-CON-1", "REL-FT-1"]
    config = {
        **BASE,
        "models": {"smol": gguf("smollm2-135m", "~/m/smol.gguf"), "floor": gguf("gemma3-270m", "~/m/g.gguf")},
        "suites": ["reliability"], "repeats": 3,
        "tasks": {"capability": ["DA-1", "SCH-1", "COM-1"], "reliability": tasks},
    }  # fmt: skip

    def records(work: Path) -> None:
        for name, model in (("smol", "smollm2-135m"), ("floor", "gemma3-270m")):
            place(work, name, f"{model}/reliability_T0_native_repaired_p-full", tasks=tasks)

    return build(tmp_path_factory.mktemp("reliability"), config, records)


def test_a_study_of_two_reliability_dimensions_reports_those_and_no_composite(reliability_only: Path) -> None:
    facts, text, results = checked(reliability_only)
    assert facts.ran == {"reliability"} and facts.dimensions == ("consistency", "fault_tolerance")
    assert not results.defined("rel.composite.mean")
    words = prose(text)
    assert "How reliable" in text and "\\label{sec:reliability}" in text
    assert "two of its four dimensions, consistency and fault tolerance" in words
    assert "needs every dimension and is not computed" in words
    assert "\\paragraph{Safety.}" not in text and "fig:perturbation_heatmap" not in text
    assert left_out(text, "capability", "appendix_transcripts") and "base model" in words


@pytest.fixture(scope="module")
def base_study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    models = {m: STUDY.models[m].model_dump(exclude_none=True) for m in ("smollm2-135m", "gemma3-270m")}
    config = {**BASE, "models": models, "suites": ["capability", "reliability"], "repeats": 3}
    stems = ["capability_T0_native_repaired_p-full", "reliability_T0_native_repaired_p-full"]
    return build(tmp_path_factory.mktemp("base"), config, raw={m: stems for m in models})


def test_a_study_with_a_base_control_and_no_protocol_study_gets_a_text_true_for_it(base_study: Path) -> None:
    facts, text, _ = checked(base_study)
    assert facts.ran == {"capability", "reliability"} and [m.name for m in facts.base] == ["gemma3-270m"]
    assert "the pretrained base model\ngemma3-270m as a floor control" in text or "base model" in prose(text)
    for section in ("protocol", "comparisons", "eligibility", "appendix_protocol"):
        assert f"% section {section}: left out" in text
    assert "% section reliability\n" in text and "How reliable" in text


@pytest.fixture(scope="module")
def scripted_study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A scripted model and a scripted base model, their trials run in the folder (no protocol, one suite)."""
    answer = {"params_b": 0.1, "backend": "scripted", "outputs": ["Lake Varnholm is 214 metres deep."]}
    config = {
        **BASE, "models": {"double": {**answer, "instruct": True}, "floor": {**answer, "instruct": False, "params_b": 0.2}},
        "suites": ["capability"], "repeats": 1, "max_turns": 2, "tasks": {"capability": ["IR-1", "SCH-1", "COM-1"]},
    }  # fmt: skip
    return build(tmp_path_factory.mktemp("scripted"), config, run=True)


def test_a_scripted_study_with_a_base_model_marks_it(scripted_study: Path) -> None:
    facts, text, _ = checked(scripted_study)
    assert [m.name for m in facts.base] == ["floor"] and facts.ran == {"capability"}
    table = (scripted_study / "paper/generated/tab_capability.tex").read_text()
    assert "floor\\textsuperscript{b}" in table and "Base models (floor controls) are marked" in table
    assert "run by a scripted test double" in prose(text)


@pytest.fixture(scope="module")
def served_and_in_process(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """SmolLM2 by path in-process, and the same file behind llama.cpp's llama-server with two trials in flight:
    the capability suite's seven tasks at T=0 (trials run for real)."""
    from slmbench.models.llama_server import LlamaServer, LlamaServerError, llama_server_binary

    path = weights_path(SMOLLM)
    if not path.exists():
        pytest.skip("run `slmbench models fetch smollm2-135m`")
    try:
        llama_server_binary()
    except LlamaServerError:
        pytest.skip("run `make llama-server`")
    tmp = tmp_path_factory.mktemp("real")
    with LlamaServer(path, "smollm2-135m", parallel=2, n_ctx=4096, log_path=tmp / "server.log") as server:
        config = {
            **BASE,
            "models": {
                "my-smol-gguf": gguf("smollm2-135m", str(path)),
                "my-smol-served": {**served("smollm2-135m", 0), "base_url": server.base_url, "concurrency": 2},
            },
            "suites": ["capability"], "repeats": 1, "tasks": {"capability": SEVEN},
        }  # fmt: skip
        return build(tmp, config, run=True)


@pytest.mark.model
def test_a_user_study_of_one_file_in_process_and_served_gets_a_text_true_for_it(
    served_and_in_process: Path,
) -> None:
    facts, text, results = checked(served_and_in_process)
    assert facts.served_pairs == (("my-smol-gguf", "my-smol-served"),)
    served_model = facts.model("my-smol-served")
    assert served_model.concurrency == 2 and served_model.served_by == "llama-server"
    words = prose(text)
    assert "two trials in flight at once" in words and "The models my-smol-gguf and my-smol-served" in words
    assert results.number("twin.n.pairs") == 7 and "\\input{generated/tab_served_twins}" in text
