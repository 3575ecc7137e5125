"""The audit site's build: data files safe to embed, every trial and number in place, the audit's selection."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner
from tests.fixtures.pdf_links import pdf_uris
from tests.fixtures.site_study import HOSTILE, SiteStudy, build_study

from slmbench.analysis.selection import select_trials
from slmbench.cli import main
from slmbench.records.ledger import iter_records
from slmbench.site import SiteInputError, build_site, ranges, script_json, shard_ids, tex_text
from slmbench.site.encode import js_call
from slmbench.site.numbers import number_trials
from slmbench.site.pages import number_page

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> SiteStudy:
    return build_study(tmp_path_factory.mktemp("site_study"))


@pytest.fixture(scope="module")
def site(study: SiteStudy) -> Path:
    out = study.root / "site"
    build_site(study.raw_dir, study.trials, study.provenance, out, root=study.root)
    return out


def data_call(path: Path, function: str) -> list:
    """The arguments of the one ``function(...)`` call a data file holds."""
    text = path.read_text()
    assert text.startswith(function + "(") and text.endswith(");\n")
    return json.loads("[" + text[len(function) + 1 : -3] + "]")


def test_script_json_escapes_what_could_end_a_script_or_start_markup():
    text = script_json({"a": "</script><!-- & \u2028\u2029", "n": float("nan")})
    assert not re.search("[<>&\u2028\u2029]", text)
    assert json.loads(text) == {"a": "</script><!-- & \u2028\u2029", "n": None}


def test_shard_ids_are_distinct_safe_file_names():
    ids = shard_ids(
        ["data/raw/slmbench/m:1/a b.jsonl", "data/raw/x/m:1/a b.jsonl", "data/raw/slmbench/m/c.jsonl"]
    )
    assert len(set(ids.values())) == 3
    assert all(re.fullmatch(r"[A-Za-z0-9._-]+", v) for v in ids.values())


def test_ranges_are_half_open_runs():
    assert ranges([5, 0, 1, 2, 7, 6, 9]) == [[0, 3], [5, 8], [9, 10]]
    assert ranges([]) == []


def test_tex_text_reads_as_printed():
    assert tex_text("67.7\\%") == "67.7%"
    assert tex_text("n\\_ctx 1024") == "n_ctx 1024"
    assert tex_text("0.1--1.5") == "0.1\u20131.5"


def test_the_index_lists_every_trial_with_its_shard(study, site):
    (doc,) = data_call(site / "data" / "index.js", "SLM.index")
    trials = pd.read_parquet(study.trials)
    col = {name: i for i, name in enumerate(doc["columns"])}
    assert [r[0] for r in doc["rows"]] == trials["trial_id"].tolist()
    models = [doc["categorical"]["model"][r[col["model"]]] for r in doc["rows"]]
    assert models == trials["model"].tolist()
    shards = {s["id"]: s for s in doc["shards"]}
    assert all(doc["categorical"]["shard"][r[col["shard"]]] in shards for r in doc["rows"])
    assert {c for c, _ in doc["filters"]} >= {
        "model", "task_id", "suite", "outcome", "failure_class", "scaffold", "parser_mode", "protocol", "temperature"
    }  # fmt: skip


def test_each_shard_file_holds_its_records_as_written_and_the_tidy_verdict(study, site):
    trials = pd.read_parquet(study.trials).set_index("trial_id")
    for shard in sorted(study.raw_dir.rglob("*.jsonl")):
        records = {r.trial_id: r for _, r in iter_records(shard)}
        sid = shard_ids([str(shard.relative_to(study.root))])[str(shard.relative_to(study.root))]
        chunk_id, chunk = data_call(site / "trials" / f"{sid}.js", "SLM.chunk")
        assert chunk_id == sid and set(chunk) == set(records)
        for trial_id, item in chunk.items():
            assert item["record"] == records[trial_id].model_dump(mode="json")
            assert item["verdict"]["outcome"] == trials.loc[trial_id, "outcome"]
            assert item["verdict"]["criteria"] == json.loads(trials.loc[trial_id, "criteria"])
            assert item["source"]["file"] == str(shard.relative_to(study.root))


def test_model_text_never_appears_as_markup_in_any_file(site):
    text = "".join(p.read_text() for p in site.rglob("*") if p.is_file())
    assert "window.pwned" in text
    assert "<script>window.pwned" not in text and "<img" not in text
    _, chunk = data_call(next((site / "search").glob("scripted-a*.js")), "SLM.searchChunk")
    assert any(HOSTILE.lower() in text for text in chunk.values())


def test_the_failed_trial_carries_its_refusal_reason_and_repaired_arguments(study, site):
    _, chunk = data_call(next((site / "trials").glob("scripted-a*.js")), "SLM.chunk")
    events = chunk[study.failed_trial]["record"]["events"]
    refusal = next(e for e in events if e["type"] == "refusal")
    call = next(e for e in events if e["type"] == "tool_call")
    assert refusal["reason"] and refusal["code"] == "unparseable_json"
    assert call["repairs"] == ["rename_field"] and call["repaired_arguments"] == {
        "query": call["arguments"]["q"]
    }
    assert chunk[study.failed_trial]["posed"]["tools"] == ["web_search"]


def test_number_pages_select_the_trials_slmbench_audit_selects(study, site):
    trials = pd.read_parquet(study.trials)
    prov = json.loads(study.provenance.read_text())
    assert sorted(p.stem for p in (site / "numbers").glob("*.html")) == sorted(
        [n["key"] for n in prov["numbers"]] + ["index"]
    )
    for number in prov["numbers"]:
        page = (site / "numbers" / f"{number['key']}.html").read_text()
        data = json.loads(
            re.search(r'<script type="application/json" id="page-data">(.*?)</script>', page)[1]
        )
        rows = [i for start, stop in data["ranges"] for i in range(start, stop)]
        expected = select_trials(trials, number["provenance"]["selection"])["trial_id"].tolist()
        assert trials["trial_id"].iloc[rows].tolist() == expected
        assert f"{len(expected)} trials" in page
    ignored = (site / "numbers" / "fix.n.b-ignored.html").read_text()
    assert "not a column of the trials table: ignored" in ignored


def test_trials_without_a_raw_record_are_listed_without_a_transcript(study, tmp_path):
    trials = pd.read_parquet(study.trials)
    extra = trials.iloc[[0]].assign(trial_id="published/x/1", study="published", source_file="report.json")
    path = tmp_path / "trials.parquet"
    pd.concat([trials, extra], ignore_index=True).to_parquet(path, index=False)
    summary = build_site(study.raw_dir, path, study.provenance, tmp_path / "site", root=study.root)
    assert (summary.n_trials, summary.n_transcripts) == (len(trials) + 1, len(trials))
    (doc,) = data_call(tmp_path / "site" / "data" / "index.js", "SLM.index")
    assert doc["rows"][-1][doc["columns"].index("shard")] is None


def test_a_record_missing_from_the_trials_table_stops_the_build_and_keeps_the_old_site(study, tmp_path):
    out = tmp_path / "site"
    build_site(study.raw_dir, study.trials, study.provenance, out, root=study.root)
    before = sorted(p.relative_to(out) for p in out.rglob("*"))
    stale = tmp_path / "stale.parquet"
    pd.read_parquet(study.trials).iloc[1:].to_parquet(stale, index=False)
    with pytest.raises(
        SiteInputError, match=r"capability_T0_native_repaired.jsonl:1: .* not in the trials table"
    ):
        build_site(study.raw_dir, stale, study.provenance, out, root=study.root)
    assert sorted(p.relative_to(out) for p in out.rglob("*")) == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_a_key_that_cannot_name_a_file_is_refused(study, tmp_path):
    prov = json.loads(study.provenance.read_text())
    prov["numbers"][0]["key"] = "../escape"
    bad = tmp_path / "provenance.json"
    bad.write_text(json.dumps(prov))
    with pytest.raises(SiteInputError, match="escape"):
        build_site(study.raw_dir, study.trials, bad, tmp_path / "site", root=study.root)


def test_the_view_command_builds_the_site(study, tmp_path, monkeypatch):
    monkeypatch.chdir(study.root)
    result = CliRunner().invoke(
        main,
        ["view", "--raw-dir", "data/raw", "--trials", str(study.trials), "--provenance", str(study.provenance),
         "--out", str(tmp_path / "out")],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "4 trials (4 with transcripts, 2 shards), 3 number pages" in result.output
    assert (tmp_path / "out" / "index.html").exists()


def test_js_call_is_one_line_of_javascript():
    assert js_call("SLM.chunk", "a", {"b": "</script>"}) == 'SLM.chunk("a",{"b":"\\u003c/script\\u003e"});\n'


@pytest.mark.skipif(shutil.which("latexmk") is None, reason="LaTeX is not installed (make test installs it)")
@pytest.mark.parametrize("base", [None, "https://example.org/slmbench"])
def test_each_res_in_the_pdf_links_to_its_number_page(tmp_path, base):
    """main.tex's own \\res and \\slmsite definitions, compiled as the pdf rule compiles them."""
    main_tex = (ROOT / "paper" / "main.tex").read_text()
    defs = [
        line
        for line in main_tex.splitlines()
        if line.startswith(("\\providecommand{\\slmsite}", "\\newcommand{\\res}"))
    ]
    assert len(defs) == 2
    paper = tmp_path / "paper"
    (paper / "generated").mkdir(parents=True)
    (paper / "generated" / "numbers.tex").write_text(
        "\\expandafter\\def\\csname slmres@cap.acc.a-b\\endcsname{67.7\\%}\n"
        "\\expandafter\\def\\csname slmres@n.models\\endcsname{4}\n"
    )
    (paper / "main.tex").write_text(
        "\\documentclass{article}\\usepackage[hidelinks]{hyperref}\n" + "\n".join(defs) + "\n"
        "\\input{generated/numbers}\\begin{document}\\res{cap.acc.a-b} of \\res{n.models}\\end{document}\n"
    )
    pretex = [f"-usepretex=\\def\\slmsite{{{base}}}"] if base else []
    cmd = ["latexmk", "-g", "-cd", "-pdf", "-interaction=nonstopmode", "-halt-on-error", *pretex]
    run = subprocess.run([*cmd, str(paper / "main.tex")], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout[-2000:]
    uris = pdf_uris((paper / "main.pdf").read_bytes())
    prefix = (base or "../site").encode()
    assert uris == [prefix + b"/numbers/cap.acc.a-b.html", prefix + b"/numbers/n.models.html"]


def test_a_number_page_says_what_n_counts_and_honours_an_exclusion() -> None:
    trials = pd.DataFrame(
        {"trial_id": ["a", "b", "c"], "variant": ["original", "typos", "typos"], "outcome": ["success"] * 3}
    )
    number = {
        "key": "x.flip-rate",
        "value": 0.5,
        "text": "50.0\\%",
        "provenance": {
            "function": "f",
            "params": {},
            "selection": {"variant": {"not": "original"}},
            "unit": "pairs",
            "description": "d",
        },
    }
    chosen = number_trials(trials, number)
    assert chosen.positions == [1, 2]
    assert "n counts pairs, from these 2 trials (2 success)." in number_page(number, chosen, {}, {})
