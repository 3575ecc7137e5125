"""Topic ``boundary`` and figure ``parser_modes`` on synthetic trials, events and a strict replay."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from click.testing import CliRunner
from tests.fixtures.topic_io import write_topic

from slmbench.analysis.cli import analyze
from slmbench.analysis.numbers import slug
from slmbench.analysis.topics import get_topic
from slmbench.analysis.topics.boundary import REFUSAL_CODES, REPAIRS, SURFACES, compute
from slmbench.figures.registry import draw_figure

# trial -> (study, model, params_b, parser_mode, outcome)
TRIALS = {
    "t1": ("slmbench", "a:1b", 1.0, "repaired", "success"),
    "t2": ("slmbench", "a:1b", 1.0, "repaired", "failure"),
    "t3": ("slmbench", "a:1b", 1.0, "repaired", "infra_error"),
    "t4": ("slmbench", "b:3b", 3.0, "repaired", "failure"),
    "t5": ("slmbench", "b:3b", 3.0, "strict", "success"),
    "x1": ("karmacharya2026", "c:7b", 7.0, "strict", "success"),
}
# (trial, surface, repairs)
CALLS = [
    ("t1", "native", []),
    ("t1", "fenced_json", ["name_recognition", "json_fix"]),
    ("t2", "bare_json", ["name_recognition"]),
    ("t3", "native", []),  # infra error: excluded
    ("t4", "tool_call_tag", []),
    ("t4", "json", ["mystery_repair"]),  # unknown surface and repair: both count as other
    ("t5", "native", []),  # strict trial: a surface, but outside the repair denominator
    ("x1", "native", []),  # other study: excluded
]
REFUSALS = [
    ("t1", "wrong_wrapper"),
    ("t4", "schema_invalid"),
    ("t4", "brand_new_code"),
    ("t3", "wrong_wrapper"),
]
# (trial, model, turn, recorded_accepted, replay_accepted)
REPLAY_ROWS = [
    ("t1", "a:1b", 1, 2, 1),
    ("t2", "a:1b", 1, 1, 0),
    ("t2", "a:1b", 2, 0, 0),
    ("t4", "b:3b", 1, 2, 0),
    ("t4", "b:3b", 2, 0, 1),
    ("t5", "b:3b", 1, 1, 1),  # strict-mode trial: unmatched
    ("t3", "a:1b", 1, 1, 0),  # infra error: unmatched
    ("ghost", "a:1b", 1, 3, 0),  # not in the trials table: unmatched
]
PARAMS: dict[str, Any] = {"bootstrap_seed": 1, "n_boot": 10}


def wilson_ref(k: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """Textbook Wilson score interval (Wilson 1927), written out independently of the package."""
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


def make_trials() -> pd.DataFrame:
    rows = [
        {"trial_id": t, "study": s, "model": m, "params_b": pb, "is_base": False, "parser_mode": pm,
         "outcome": o, "passed": o == "success", "suite": "capability", "task_id": t}
        for t, (s, m, pb, pm, o) in TRIALS.items()
    ]  # fmt: skip
    return pd.DataFrame(rows)


def make_events() -> pd.DataFrame:
    rows: list[dict[str, Any]] = []
    for i, (trial, surface, repairs) in enumerate(CALLS):
        mode = TRIALS[trial][3]
        rows.append({"trial_id": trial, "seq": i, "type": "tool_call", "turn": 1, "name": "calculator",
                     "code": None, "surface": surface, "parser_mode": mode, "repairs": json.dumps(repairs),
                     "arguments": json.dumps({"x": 1})})  # fmt: skip
    for i, (trial, code) in enumerate(REFUSALS):
        rows.append({"trial_id": trial, "seq": 100 + i, "type": "refusal", "turn": 1, "name": None,
                     "code": code, "surface": None, "parser_mode": None, "repairs": "[]", "arguments": "null"})  # fmt: skip
    return pd.DataFrame(rows)


def make_replay(mode: str = "strict") -> dict[str, Any]:
    rows = [
        {"trial_id": t, "model": m, "turn": turn, "recorded_mode": "repaired", "replay_mode": mode,
         "recorded_accepted": ra, "recorded_refused": 0, "replay_accepted": pa, "replay_refused": 0,
         "replay_codes": [], "replay_repairs": []}
        for t, m, turn, ra, pa in REPLAY_ROWS
    ]  # fmt: skip
    return {"mode": mode, "n_responses": len(rows), "per_model": {}, "rows": rows}


def replay_file(path: Path, mode: str = "strict") -> Path:
    """The replay as ``slmbench replay`` writes it (parquet; codes and repairs as JSON lists)."""
    frame = pd.DataFrame(make_replay(mode)["rows"])
    for column in ("replay_codes", "replay_repairs"):
        frame[column] = frame[column].map(json.dumps)
    frame.to_parquet(path, index=False)
    return path


def _values(
    params: dict[str, Any] | None = None, trials: pd.DataFrame | None = None, events: Any = "default"
):
    ev = make_events() if isinstance(events, str) else events
    res = compute(make_trials() if trials is None else trials, ev, {**PARAMS, **(params or {})})
    keys = [n.key for n in res.numbers]
    assert len(keys) == len(set(keys)), "duplicate keys"
    return {n.key: n.value for n in res.numbers}, res.tables


def _assert_rate(vals: dict[str, Any], key: str, k: int, n: int) -> None:
    assert vals[f"{key}.k"] == k and vals[f"{key}.n"] == n
    assert vals[key] == pytest.approx(k / n)
    lo, hi = wilson_ref(k, n)
    assert vals[f"{key}.lo"] == pytest.approx(lo, abs=1e-9)
    assert vals[f"{key}.hi"] == pytest.approx(hi, abs=1e-9)


def test_counts_exclude_infra_errors_and_other_studies() -> None:
    vals, _ = _values()
    assert vals["boundary.n.trials"] == 4
    assert vals["boundary.n.models"] == 2
    assert vals["boundary.n.infra-errors"] == 1
    assert vals["boundary.n.calls"] == 6
    assert vals["boundary.n.refusals"] == 3
    assert vals["boundary.n.trials-with-calls"] == 4


def test_surface_shares_pooled_with_wilson_and_per_model_table() -> None:
    vals, tables = _values()
    for surface, k in {"native": 2, "fenced-json": 1, "bare-json": 1, "tool-call-tag": 1, "other": 1}.items():
        _assert_rate(vals, f"boundary.surface.{surface}", k, 6)
    _assert_rate(vals, "boundary.surface.react", 0, 6)
    _assert_rate(vals, "boundary.surface.function-syntax", 0, 6)
    rows = {(r["model"], r["surface"]): r for r in tables["surfaces"]}
    assert len(rows) == 2 * len(SURFACES)
    assert (rows[("a:1b", "native")]["k"], rows[("a:1b", "native")]["n"]) == (1, 3)
    assert rows[("b:3b", "other")]["share"] == pytest.approx(1 / 3)
    assert sum(r["share"] for r in tables["surfaces"] if r["model"] == "a:1b") == pytest.approx(1.0)


def test_repair_shares_over_repaired_mode_calls() -> None:
    vals, tables = _values()
    _assert_rate(vals, "boundary.repair.any", 3, 5)
    _assert_rate(vals, "boundary.repair.name-recognition", 2, 5)
    _assert_rate(vals, "boundary.repair.json-fix", 1, 5)
    _assert_rate(vals, "boundary.repair.other", 1, 5)
    _assert_rate(vals, "boundary.repair.rename-field", 0, 5)
    rows = {(r["model"], r["repair"]): r for r in tables["repairs"]}
    assert (rows[("a:1b", "any")]["k"], rows[("a:1b", "any")]["n"]) == (2, 3)
    assert (rows[("b:3b", "any")]["k"], rows[("b:3b", "any")]["n"]) == (1, 2)
    assert len(rows) == 2 * (len(REPAIRS) + 1)


def test_refusal_code_shares() -> None:
    vals, tables = _values()
    for code in ("wrong-wrapper", "schema-invalid", "other"):
        _assert_rate(vals, f"boundary.refusal.{code}", 1, 3)
    _assert_rate(vals, "boundary.refusal.empty-output", 0, 3)
    rows = {(r["model"], r["code"]): r for r in tables["refusals"]}
    assert (rows[("b:3b", "schema_invalid")]["k"], rows[("b:3b", "schema_invalid")]["n"]) == (1, 2)
    assert len(rows) == 2 * len(REFUSAL_CODES)


def test_strict_replay_lost_calls_and_trials(tmp_path: Path) -> None:
    path = tmp_path / "replay.parquet"
    replay_file(path)
    vals, tables = _values({"replay": str(path)})
    assert vals["boundary.strict.replayed"] == "yes"
    assert vals["boundary.strict.n.unmatched"] == 3
    assert vals["boundary.strict.n.responses"] == 5
    assert vals["boundary.strict.n.gained"] == 1
    _assert_rate(vals, "boundary.strict.lost", 4, 5)
    _assert_rate(vals, "boundary.strict.trials-all-lost", 2, 3)
    rows = {r["model"]: r for r in tables["strict"]}
    a, b = rows["a:1b"], rows["b:3b"]
    assert (a["responses"], a["recorded_accepted"], a["lost"], a["gained"]) == (3, 3, 2, 0)
    assert (a["trials_with_calls"], a["trials_all_lost"]) == (2, 1)
    assert a["share"] == pytest.approx(2 / 3) and a["lo"] == pytest.approx(wilson_ref(2, 3)[0])
    assert (b["responses"], b["recorded_accepted"], b["lost"], b["gained"]) == (2, 2, 2, 1)
    assert (b["share"], b["trials_with_calls"], b["trials_all_lost"]) == (1.0, 1, 1)
    inline, _ = _values({"replay": make_replay()})
    assert inline == vals


def _pooled(keys: Any) -> set[str]:
    """The keys that name no model (per-model keys exist for the models that have data)."""
    models = {slug(t[1]) for t in TRIALS.values()}
    return {k for k in keys if not models & set(k.split("."))}


def test_same_keys_whatever_the_data() -> None:
    full, _ = _values({"replay": make_replay()})
    assert full["boundary.strict.lost.a-1b"] == pytest.approx(2 / 3)  # per model, as in the table
    assert full["boundary.strict.lost.b-3b"] == 1.0
    assert full["boundary.surface.native.a-1b"] == pytest.approx(1 / 3)
    empty_trials = make_trials().iloc[0:0]
    for vals, _tables in (_values(trials=empty_trials, events=None), _values(events=None), _values()):
        assert _pooled(vals) == _pooled(full)
    vals, tables = _values(trials=empty_trials, events=None)
    assert vals["boundary.strict.replayed"] == "no"
    assert vals["boundary.surface.native"] == "n/a" and vals["boundary.strict.lost"] == "n/a"
    assert vals["boundary.repair.any"] == "n/a" and vals["boundary.n.calls"] == 0
    assert all(rows == [] for rows in tables.values())
    assert get_topic("boundary") is compute


def test_replay_of_the_wrong_mode_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="mode 'strict'"):
        _values({"replay": make_replay("repaired")})
    with pytest.raises(ValueError, match="mode 'strict'"):
        _values({"replay": str(replay_file(tmp_path / "replay.parquet", "repaired"))})


def test_cli_accepts_replay(tmp_path: Path) -> None:
    make_trials().to_parquet(tmp_path / "trials.parquet")
    make_events().to_parquet(tmp_path / "events.parquet")
    replay_file(tmp_path / "replay.parquet")
    out = tmp_path / "boundary.json"
    args = ["boundary", "--trials", str(tmp_path / "trials.parquet"), "--events", str(tmp_path / "events.parquet"),
            "--replay", str(tmp_path / "replay.parquet"), "--out", str(out)]  # fmt: skip
    res = CliRunner().invoke(analyze, args)
    assert res.exit_code == 0, res.output
    doc = json.loads(out.read_text())
    assert doc["params"]["replay"] == str(tmp_path / "replay.parquet")
    nums = {n["key"]: n["text"] for n in doc["numbers"]}
    assert nums["boundary.strict.lost"] == "80.0\\%"
    assert nums["boundary.strict.trials-all-lost.k"] == "2"


def _texts(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    import matplotlib.pyplot as plt

    captured: list[str] = []
    orig = plt.Figure.savefig

    def spy(fig: plt.Figure, *args: object, **kwargs: object) -> None:
        captured.extend(t.get_text() for ax in fig.axes for t in ax.texts)
        orig(fig, *args, **kwargs)

    monkeypatch.setattr(plt.Figure, "savefig", spy)
    return captured


def test_figure_reads_the_topic_and_says_no_data_without_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    trials = make_trials()
    res = compute(trials, make_events(), {**PARAMS, "replay": make_replay()})
    topic = write_topic(tmp_path / "boundary.json", "boundary", res, trials)
    models = [{"model": m, "params_b": p, "is_base": False} for m, p in (("a:1b", 1.0), ("b:3b", 3.0))]
    capability = tmp_path / "capability.json"
    capability.write_text(json.dumps({"topic": "capability", "numbers": [], "tables": {"models": models}}))
    texts = _texts(monkeypatch)
    values = draw_figure("parser_modes", {"boundary": topic, "capability": capability}, tmp_path / "full.pdf")
    assert texts == []
    assert values["boundary.surface.native.a-1b"] == pytest.approx(1 / 3)
    assert values["boundary.strict.lost.b-3b"] == 1.0
    shares = [v for k, v in values.items() if k.startswith("boundary.surface.") and k.endswith("a-1b")]
    assert sum(shares) == pytest.approx(1.0, abs=1e-11)  # each share is written at 12 significant digits
    draw_figure("parser_modes", {"capability": capability}, tmp_path / "none.pdf")
    assert texts == ["no boundary topic", "no strict replay"]
    silent = {**make_replay(), "rows": [{**r, "recorded_accepted": 0} for r in make_replay()["rows"]]}
    write_topic(topic, "boundary", compute(trials, None, {**PARAMS, "replay": silent}))
    draw_figure("parser_modes", {"boundary": topic, "capability": capability}, tmp_path / "silent.pdf")
    assert texts[2:] == ["no recorded tool calls", "no accepted calls in the replay"]
    assert all((tmp_path / f).read_bytes().startswith(b"%PDF") for f in ("full.pdf", "none.pdf"))
