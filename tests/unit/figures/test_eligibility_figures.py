"""The eligibility figures and tables draw only from the topic, and write the values they plotted by key."""

import json
from pathlib import Path

import pytest
from tests.fixtures.eligibility import synthetic_baselines, synthetic_runs

from slmbench.analysis.topics.eligibility import EligibilityInputs, compute
from slmbench.figures import FIGURES, TABLES, draw_figure, render_table, values_path
from slmbench.records.atomic import dump_json

NAMES = ("eligibility_margin_vs_size", "eligibility_margin_vs_quant", "cascade_cost_accuracy")


@pytest.fixture
def topic(tmp_path: Path) -> dict:
    res = compute(EligibilityInputs(synthetic_runs(quant_b=True), synthetic_baselines()), {})
    doc = {
        "topic": "eligibility",
        "params": {},
        "numbers": [n.to_dict() for n in res.numbers],
        "tables": res.tables,
    }
    (tmp_path / "eligibility.json").write_text(dump_json(doc))
    return json.loads((tmp_path / "eligibility.json").read_text())


@pytest.mark.parametrize("name", NAMES)
def test_figure_draws_from_the_topic_and_writes_values(name: str, topic: dict, tmp_path: Path) -> None:
    assert name in FIGURES
    out = tmp_path / f"fig_{name}.pdf"
    draw_figure(name, {"eligibility": tmp_path / "eligibility.json"}, out)
    assert out.read_bytes().startswith(b"%PDF")
    values = json.loads(values_path(out).read_text())
    numbers = {n["key"]: n["value"] for n in topic["numbers"]}
    assert values and set(values) <= set(numbers)
    for key, value in values.items():
        assert value == pytest.approx(numbers[key])


@pytest.mark.parametrize("name", NAMES)
def test_figure_without_topic_says_so(name: str, tmp_path: Path) -> None:
    out = tmp_path / "empty.pdf"
    draw_figure(name, {"eligibility": tmp_path / "absent.json"}, out)
    assert out.read_bytes().startswith(b"%PDF") and json.loads(values_path(out).read_text()) == {}


def test_margin_vs_size_plots_every_configuration(topic: dict, tmp_path: Path) -> None:
    out = tmp_path / "size.pdf"
    draw_figure("eligibility_margin_vs_size", {"eligibility": tmp_path / "eligibility.json"}, out)
    values = json.loads(values_path(out).read_text())
    gaps = {k for k in values if k.endswith(".gap")}
    assert gaps == {f"{row['key']}.gap" for row in topic["tables"]["configs"]}


def test_tables_print_the_numbers_text(topic: dict) -> None:
    text = render_table("eligibility", topic)
    numbers = {n["key"]: n["text"] for n in topic["numbers"]}
    assert "Baseline & & & " + numbers["elig.command-approval.baseline.acc"] in text
    row = next(line for line in text.splitlines() if line.startswith("m-a & terse & shipped"))
    assert numbers["elig.command-approval.m-a.terse.shipped.acc"] in row and "\\textsuperscript{\\dag}" in row
    assert "m-a & terse & Q2\\_K" in text
    diag = render_table("eligibility_diagnosis", topic)
    assert "calibration" in diag and "capability" in diag and "$-$3" not in diag
    assert numbers["elig.command-approval.m-b.terse.shipped.tuned.threshold"] in diag
    casc = render_table("eligibility_cascade", topic)
    assert numbers["elig.reranking.m-a.terse.shipped.cascade.called"] in casc
    assert {"eligibility", "eligibility_diagnosis", "eligibility_cascade"} <= set(TABLES)


def test_a_configuration_gets_a_row_only_in_tables_of_tasks_it_ran() -> None:
    def row(task: str, quant: str) -> dict:
        return {"model": "m", "prompt": "terse", "quant": quant, "task": task, "params_b": 1.0,
                "key": f"elig.{task}.m.{quant}"}  # fmt: skip

    configs = [
        row("command_approval", "shipped"),
        row("tool_selection", "shipped"),
        row("tool_selection", "Q2_K"),
    ]
    numbers = [{"key": f"{r['key']}.acc", "text": "50.0\\%"} for r in configs]
    topic = {"numbers": numbers, "tables": {"configs": configs}}
    assert "m & terse & Q2\\_K" in render_table("eligibility", topic)
    assert "m & terse & Q2\\_K" in render_table("eligibility_cascade", topic)
    diag = render_table("eligibility_diagnosis", topic)
    assert "m & terse & shipped" in diag and "Q2\\_K" not in diag


def test_empty_topic_table() -> None:
    assert "no data" in render_table("eligibility", {"topic": "eligibility", "numbers": [], "tables": {}})


def test_every_paper_key_is_computed(tmp_path: Path) -> None:
    """Each \\res{elig...} of the section exists when every task has runs (baselines from the fixture data)."""
    import re

    from tests.fixtures.eligibility import RUBRICS, data_dir, header, item_record

    from slmbench.eligibility.baselines import ACK_CUE_NAME, ACK_CUES, BASELINE_NAMES, predict
    from slmbench.eligibility.datasets import assign_split, load_task
    from slmbench.eligibility.quoting import MIN_PART_WORDS

    data, bfcl = data_dir(tmp_path)
    doc: dict = {"quoting": {"min_part_words": MIN_PART_WORDS}, "tasks": {}}
    runs = []
    for task in BASELINE_NAMES:
        items = load_task(task, data, bfcl)
        preds = predict(task, items, assign_split(task, items, 1), RUBRICS[task])  # type: ignore[arg-type]
        doc["tasks"][task] = {"baseline": BASELINE_NAMES[task], "items": [p.to_dict() for p in preds]}
        if task == "memory_write":
            doc["tasks"][task].update(cue=ACK_CUE_NAME, cue_phrases=list(ACK_CUES))
        recs = [item_record(p.id, p.split, p.label, p.label, margin=1.0 if p.label in ("approve", "save") else -1.0,
                            candidates=(p.label, "other")) for p in preds]  # fmt: skip
        for quant in ("shipped", "Q2_K"):
            runs.append({"file": f"{task}-{quant}", "header": header(task, "m", quant=quant), "items": recs})
    numbers = {n.key: n.text for n in compute(EligibilityInputs(runs, doc), {}).numbers}
    # the eligibility text, rendered from these numbers: every key it asks for must exist and be defined
    tex = "".join(_eligibility_text(numbers, tmp_path, t) for t in ("eligibility", "appendix_eligibility"))
    used = set(re.findall(r"\\res\{(elig\.[a-z0-9.-]+)\}", tex))
    assert used and used <= set(numbers), sorted(used - set(numbers))
    # the data as they are: who wrote and labelled them, the subsets, the cue and the positions
    assert "no person" in tex and "not agreement between independent annotators" in tex
    assert {"elig.n.eligible.unquoted", "elig.n.eligible.family", "elig.memory-write.cue.acc",
            "elig.reranking.pos.max-kappa", "elig.quoted.min-part-words"} <= used  # fmt: skip
    assert "tab:eligibility_subsets" in tex and "tab:eligibility_positions" in tex
    assert "tab:eligibility_position_counts" in tex
    assert not re.search(r"(?<![\\\w{.-])\d+(?:\.\d+)?\s*\\?%", tex)  # no typed percentages


def _eligibility_text(numbers: dict[str, str], tmp_path: Path, template: str) -> str:
    """A template of the eligibility text rendered for a study whose eligibility study ran with ``numbers``."""
    from slmbench.paper import ModelFacts, Renderer, Results, StudyFacts
    from slmbench.vocab import ELIGIBILITY_TASKS

    model = ModelFacts("m", "m", 0.5, True, "llamacpp", True)
    facts = StudyFacts(
        models=(model,), suites=("capability",), protocol="full", scaffold="native", parser_mode="repaired",
        temperatures=(0.0,), repeats=1, primary_build=None, planned=frozenset({"capability", "eligibility"}),
        ran=frozenset({"capability", "eligibility"}), eligibility_tasks=tuple(ELIGIBILITY_TASKS),
    )  # fmt: skip
    names = {"eligibility_margin_vs_size", "eligibility_margin_vs_quant", "cascade_cost_accuracy"}
    renderer = Renderer(
        facts=facts,
        results=Results(numbers),
        templates=Path(__file__).parents[3] / "paper/templates",
        figure_parts={n: ("eligibility",) for n in names},
        figures=frozenset(names),
        tables=frozenset(
            {"eligibility", "eligibility_diagnosis", "eligibility_cascade", "eligibility_subsets",
             "eligibility_positions", "eligibility_position_counts"}
        ),
    )  # fmt: skip
    return renderer.render(f"{template}.tex.j2")


def test_the_tables_of_the_data_as_they_are() -> None:
    """The subsets' table prints each set's accuracy with its baseline row; the position tables print a
    configuration's habit and, per turn number, answered/right counts under the relevant turns' counts."""
    res = compute(EligibilityInputs(synthetic_runs(), synthetic_baselines()), {})
    topic = {"numbers": [n.to_dict() for n in res.numbers], "tables": res.tables}
    numbers = {n["key"]: n["text"] for n in topic["numbers"]}
    subsets = render_table("eligibility_subsets", topic)
    row = next(line for line in subsets.splitlines() if line.startswith("m-a & terse & shipped"))
    assert numbers["elig.command-approval.m-a.terse.shipped.family.acc"] in row
    assert "\\res{elig.phrase.subsets-n}" in subsets and "Unit: test items" in subsets
    positions = render_table("eligibility_positions", topic)
    assert (
        "m-a & terse & shipped & " + numbers["elig.reranking.m-a.terse.shipped.acc"] + " & 1 & " in positions
    )
    counts = render_table("eligibility_position_counts", topic)
    assert "Relevant & & & 20 & -- & --" in counts  # every relevant turn of the synthetic items is turn 1
    assert "m-a & terse & shipped & 10/10 & -- & 10/0 &" in counts
