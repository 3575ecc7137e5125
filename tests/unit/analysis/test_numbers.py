"""Number formatting, keys and the numbers.tex round trip."""

import math

import pytest

from slmbench.analysis import numbers as nb


def test_formats() -> None:
    assert nb.fmt_rate(0.6774193548387096) == "67.7\\%"
    assert nb.fmt_rate(0.0) == "0.0\\%"
    assert nb.fmt_p(0.0004) == "<0.001"
    assert nb.fmt_p(0.6) == "0.600"
    assert nb.fmt_p(0.0105) == "0.0105"
    assert nb.fmt_p(0.04567) == "0.0457"
    assert nb.fmt_stat(-0.456) == "-0.46"
    assert nb.fmt_rate(math.nan) == "n/a"
    assert nb.count("cap.n.trials", 31, {}).text == "31"


def test_slugs() -> None:
    assert nb.slug("qwen2.5:7b") == "qwen2-5-7b"
    assert nb.slug("SmolLM2-135M") == "smollm2-135m"
    assert nb.slug("phi3.5:3.8b") == "phi3-5-3-8b"
    assert nb.temp_slug(0.7) == "t07" and nb.temp_slug(1.0) == "t10" and nb.temp_slug(0.0) == "t00"


def test_bad_key_rejected() -> None:
    with pytest.raises(ValueError):
        nb.Number("ext.acc.Qwen_7b", 1, "1", {})


def test_nan_value_is_json_safe() -> None:
    n = nb.rate("x.y", math.nan, {})
    assert n.value == "n/a" and n.text == "n/a"


def test_text_is_escaped() -> None:
    assert nb.text("x", "a_b 50%", {}).text == "a\\_b 50\\%"


def test_tex_round_trip_and_duplicates() -> None:
    recs = [{"key": "b.x", "text": "1.0\\%"}, {"key": "a.y", "text": "<0.001"}]
    tex = nb.render_tex(recs)
    assert "\\expandafter\\def\\csname slmres@a.y\\endcsname{<0.001}" in tex
    assert nb.parse_tex(tex) == {"a.y": "<0.001", "b.x": "1.0\\%"}
    with pytest.raises(ValueError):
        nb.render_tex(recs + [{"key": "a.y", "text": "2"}])


def test_a_printed_digit_never_depends_on_the_last_bits_of_a_float() -> None:
    """Values that differ only beyond twelve significant digits (as sums do between CPUs) print alike: a value on
    a rounding boundary, exactly 3.75 % or -1.25 %, prints the same whichever side of it its float fell."""
    for a, b in (
        (0.0375, 0.0375 + 4e-17),
        (-0.0125, -0.0125 - 2e-18),
        (0.03798215786940531, 0.037982157869405286),
    ):
        assert nb.fmt_rate(a) == nb.fmt_rate(b)
    assert nb.fmt_rate(0.05 - 0.0125) == nb.fmt_rate(0.0375) == "3.8\\%"
    assert nb.fmt_stat(0.125 + 1e-17, 2) == nb.fmt_stat(0.125, 2)


def test_a_provenance_record_names_the_function_from_its_object() -> None:
    from slmbench.analysis import phrases_taxonomy
    from slmbench.analysis.stats_passk import pass_at_k
    from slmbench.analysis.topics.reliability import composite

    assert nb.provenance(pass_at_k, {}, "d")["function"] == "slmbench.analysis.stats_passk.pass_at_k"
    assert nb.function_name(composite) == "slmbench.analysis.topics.reliability.composite"
    assert nb.function_name(nb.Number.to_dict) == "slmbench.analysis.numbers.Number.to_dict"
    assert nb.function_name(phrases_taxonomy) == "slmbench.analysis.phrases_taxonomy"
    assert nb.function_name("len") == "len"  # an operation word, not a dotted name
    with pytest.raises(ValueError, match="pass the function itself"):
        nb.provenance("slmbench.analysis.stats_rates.pass_at_k", {}, "d")


def _resolve(dotted: str) -> object:
    """The object a dotted name names: its longest importable module, then attributes."""
    import importlib

    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            found = getattr(found, name)
        return found
    raise ImportError(dotted)


def test_every_function_the_papers_provenance_names_exists_under_that_name() -> None:
    """No typed name survives: each dotted function of paper/generated/provenance.json is an object whose own
    module and qualified name it is (a typed ``stats_rates.pass_at_k`` named nothing)."""
    import json
    from pathlib import Path

    provenance = Path(__file__).resolve().parents[3] / "paper" / "generated" / "provenance.json"
    named = {n["provenance"]["function"] for n in json.loads(provenance.read_text())["numbers"]}
    dotted = sorted(f for f in named if "." in f)
    assert dotted
    wrong = [f for f in dotted if nb.function_name(_resolve(f)) != f]  # type: ignore[arg-type]
    assert wrong == []
