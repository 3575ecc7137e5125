"""The appendix renderers: the per-task table and transcripts are valid LaTeX for hostile model text."""

from __future__ import annotations

from slmbench.figures.appendix import per_task_table, transcript_tex
from slmbench.records import schema as rec


def test_per_task_table_lists_every_task_and_model_in_order():
    rows = [
        {"task_id": "IR-10", "model": "b", "legacy": False, "full_passed": 2, "full_runs": 3},
        {"task_id": "IR-2", "model": "a", "legacy": True, "full_passed": 1, "full_runs": 1},
    ]
    tex = per_task_table(rows)
    assert tex.index("IR-2 &") < tex.index("IR-10 &")  # numeric order of task numbers
    assert "IR-2 & 1 & 1/1 & -- & --" in tex and "IR-10 & -- & -- & 0 & 2/3" in tex
    # a table over several pages: its label once (on the first page's head), its column headers on every page
    assert tex.count("\\label{tab:per_task}") == 1 and tex.index("\\label") < tex.index("\\endfirsthead")
    assert tex.count("Task & ") == 2 and "\\endhead" in tex


def test_a_transcript_escapes_what_the_model_wrote():
    end = rec.EndEvent(t=1, outcome="failure", stop_reason="final_answer", turns=1, wall_s=1, peak_rss_mb=1)
    events = [
        rec.ModelResponse(t=0, turn=1, raw_text='{"code": "import x\\n\\\\end{document} 100% & $HOME"}'),
        rec.FinalAnswerEvent(t=0, turn=1, text="#1 {done}"),
        end,
    ]
    record = rec.TrialRecord(
        trial_id="slmbench/m/capability/IR-1/original/T0/native/repaired/r0", study="slmbench",
        suite="capability", task_id="IR-1", group="g", model="m", temperature=0.0, seed=0, repeat=0,
        scaffold="native", parser_mode="repaired", started_at="t", events=events, check=None,
        outcome="failure", failure_class="capability", failure_class_clock_first="capability", fingerprint={},
    )  # fmt: skip
    tex = transcript_tex(record, "a title_with_underscore")
    assert "\\end{document}" not in tex and "\\textbackslash{}end\\{document\\}" in tex
    assert "100\\% \\& \\$HOME" in tex and "\\#1 \\{done\\}" in tex and "title\\_with" in tex
    assert "/\\allowbreak{}" in tex


def test_examples_are_the_trials_the_protocol_topic_picked_in_its_order() -> None:
    import click
    import pandas as pd
    import pytest

    from slmbench.figures.appendix import pick_examples

    trials = pd.DataFrame({"trial_id": ["a", "b", "c"], "task_id": ["T1", "T1", "T2"]})
    picked = [
        {"model": "m", "task_id": "T1", "kind": "full-passed", "trial_id": "b"},
        {"model": "m", "task_id": "T1", "kind": "legacy-failed", "trial_id": "a"},
    ]
    got = pick_examples(picked, trials)
    assert [(title, row["trial_id"]) for title, row in got] == [
        ("m, T1, full protocol (passed)", "b"),
        ("m, T1, legacy protocol (failed)", "a"),
    ]
    with pytest.raises(click.ClickException, match="lacks"):
        pick_examples([{**picked[0], "trial_id": "z"}], trials)


def test_without_a_protocol_study_the_table_lists_the_primary_runs_passes():
    from slmbench.figures.appendix import primary_per_task_table

    rows = [
        {"task_id": "SCH-1", "model": "served", "passed": 0, "runs": 1},
        {"task_id": "COD-1", "model": "gguf", "passed": 1, "runs": 1},
    ]
    tex = primary_per_task_table(rows)
    assert tex.index("COD-1 &") < tex.index("SCH-1 &") and "Task & gguf & served \\\\" in tex
    assert "COD-1 & 1/1 & -- \\\\" in tex and "SCH-1 & -- & 0/1 \\\\" in tex
    assert "legacy" not in tex and "\\label{tab:per_task}" in tex


def test_the_primary_runs_examples_have_their_titles() -> None:
    import pandas as pd

    from slmbench.figures.appendix import pick_examples

    trials = pd.DataFrame({"trial_id": ["a", "b"], "task_id": ["T1", "T2"]})
    picked = pick_examples(
        [
            {"model": "m", "task_id": "T2", "kind": "failed", "trial_id": "b"},
            {"model": "m", "task_id": "T1", "kind": "passed", "trial_id": "a"},
        ],  # fmt: skip
        trials,
    )
    assert [title for title, _ in picked] == ["m, T2, primary run (failed)", "m, T1, primary run (passed)"]
