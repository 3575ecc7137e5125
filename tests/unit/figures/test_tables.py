"""Table rows: the models by size, smallest first, then the scripted controls and baselines in a block of their
own; an interval the topic could not give prints as "no interval", never as "[n/a, n/a]"."""

from typing import Any

from slmbench.figures.tables import TABLES, render_table


def _num(key: str, text: str) -> dict[str, Any]:
    return {"key": key, "value": 0.5, "text": text, "provenance": {}}


def _rows(tex: str) -> list[str]:
    body = tex.split("\\midrule", 1)[1].split("\\bottomrule")[0]
    return [line.split(" & ")[0] if "&" in line else line for line in body.strip().splitlines()]


def test_models_by_size_then_the_controls_in_their_own_block() -> None:
    names = ["gemma3-270m", "qwen2-5-coder-1-5b", "reference-solutions", "smollm2-135m", "wrong-solutions"]
    numbers = [_num(f"cap.acc.{m}", "1.0\\%") for m in names]
    models = [("smollm2-135m", 0.135), ("gemma3-270m", 0.27), ("qwen2.5-coder-1.5b", 1.54)]
    topic = {
        "topic": "capability",
        "numbers": numbers,
        "tables": {"models": [{"model": m, "params_b": p, "is_base": False} for m, p in models]},
        "labels": {"qwen2-5-coder-1-5b": "qwen2.5-coder-1.5b", "reference-solutions": "reference solutions"},
    }
    assert _rows(render_table("capability", topic)) == [
        "smollm2-135m", "gemma3-270m", "qwen2.5-coder-1.5b", "\\midrule", "reference solutions", "wrong-solutions",
    ]  # fmt: skip


def test_an_interval_the_topic_could_not_give_says_so() -> None:
    numbers = [
        _num("rel.composite.m", "20.0\\%"),
        _num("rel.composite.m.lo", "n/a"),
        _num("rel.composite.m.hi", "n/a"),
    ]
    tex = render_table("reliability", {"topic": "reliability", "numbers": numbers})
    assert "no interval" in tex and "[n/a, n/a]" not in tex


def test_the_reliability_tables_sort_their_models_by_size() -> None:
    """The reliability topics list their models with sizes, so their tables sort by size too (they sorted by
    name: gemma3-270m before smollm2-135m)."""
    from tests.fixtures.figure_topics import topic_docs

    for name in ("reliability", "reliability_taxonomy"):
        rows = _rows(render_table(name, topic_docs()[name]))
        assert (
            rows.index("smollm2-135m")
            < rows.index("gemma3-270m\\textsuperscript{b}")
            < rows.index("qwen2.5-1.5b")
        )


def test_an_undefined_cell_prints_a_dash_that_the_caption_explains() -> None:
    keys = {"proto.cmp.full.m.mcnemar.p": "n/a", "proto.cmp.full.m.other.acc": "10.0\\%"}
    tex = render_table("protocol", {"topic": "protocol", "numbers": [_num(k, t) for k, t in keys.items()]})
    assert "n/a" not in tex and " -- " in tex.replace("&", " ")
    assert "--: no value (an exact McNemar $p$ has none without a discordant pair)." in tex
    columns = TABLES["protocol"].columns
    keys = [c.key.format(m="m") + end for c in columns for end in ((".lo", ".hi") if c.interval else ("",))]
    full = {k: "0.125" if k.endswith(".p") else "1" for k in keys}
    tex = render_table("protocol", {"topic": "protocol", "numbers": [_num(k, t) for k, t in full.items()]})
    assert "no value" not in tex and "0.125" in tex


def test_a_caption_speaks_of_the_base_mark_only_where_a_row_carries_it() -> None:
    numbers = [_num("cap.acc.a", "1.0\\%"), _num("cap.acc.b", "2.0\\%"), _num("cap.base.a", "no")]
    topic = {"topic": "capability", "numbers": numbers}
    plain = render_table("capability", {**topic, "numbers": [*numbers, _num("cap.base.b", "no")]})
    marked = render_table("capability", {**topic, "numbers": [*numbers, _num("cap.base.b", "yes")]})
    assert "marked" not in plain and "textsuperscript{b}" not in plain and "[[" not in plain
    assert "Base models (floor controls) are marked \\textsuperscript{b}. The rows" in marked
    assert "b\\textsuperscript{b} &" in marked and "[[" not in marked
    for name, spec in TABLES.items():  # every caption's word on a mark is the part that can be left out
        caption = getattr(spec, "caption", "")
        assert "marked" not in caption.replace("[[", "\0").split("\0", 1)[0], name


def test_columns_of_a_part_that_did_not_run_are_left_out_with_what_the_caption_says_of_them() -> None:
    """Only the safety suite ran: the paraphrase and fault columns, and their caption sentences, are not printed."""
    numbers = [_num(f"trob.safety.m.{k}", "50.0\\%") for k in ("harm", "compliance", "over-refusal")]
    tex = render_table("task_robustness", {"topic": "task_robustness", "numbers": numbers})
    header = next(line for line in tex.splitlines() if line.startswith("Model &"))
    assert header == "Model & Harm & Compl. & Over-ref. \\\\"
    assert "Harm: harm tasks" in tex and "Para.:" not in tex and "Timeout," not in tex and "--" not in tex
