"""The manual cannot drift from the code or the data: README and docs/ are checked against what they describe.

- docs/config.md lists exactly the fields the config's pydantic models accept, with their types and defaults;
- docs/records.md lists exactly the trial record's fields, each event type's fields and the fingerprint's keys;
- the README's findings quote numbers only as paper/generated prints them, and its figure plots the paper's
  current values;
- every document is in the README's index, every relative link resolves, and the README stays short;
- every benchmark has its figures file and its row in docs/benchmarks.md.
"""

from __future__ import annotations

import json
import math
import re
import typing
from pathlib import Path
from typing import Any

import pytest
import yaml
from tests.fixtures.config_reference import config_fields

from slmbench.backends import backend_settings
from slmbench.config import ConfigError, parse_config
from slmbench.records import schema as rec
from slmbench.records.fingerprint import trial_fingerprint

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
PROVENANCE = ROOT / "paper" / "generated" / "provenance.json"


def table_rows(text: str) -> list[list[str]]:
    """The body rows of every Markdown table in ``text``, as lists of stripped cells."""
    rows = []
    for line in text.splitlines():
        if line.startswith("|") and not re.fullmatch(r"\|[-| :]+\|", line.strip()):
            rows.append([c.strip() for c in line.strip().strip("|").split("|")])
    return [r for r in rows if r and r[0] not in ("field", "type", "key", "shards", "file")]


def section(text: str, heading: str) -> str:
    """The text under ``## heading`` up to the next ``##`` heading."""
    match = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", text, flags=re.S | re.M)
    assert match, f"no section '## {heading}'"
    return match.group(1)


def names(cell: str) -> list[str]:
    """The code spans of a cell: ``"`a`, `b` (x)"`` -> ``["a", "b"]``."""
    return re.findall(r"`([^`]+)`", cell)


# ---------------------------------------------------------------- config.yaml


def test_config_reference_lists_every_field_with_its_type_and_default() -> None:
    documented = {
        names(row[0])[0]: row for row in table_rows((DOCS / "config.md").read_text()) if names(row[0])
    }
    declared = {f.path: f for f in config_fields()}
    missing = [
        f"| `{f.path}` | {f.type} | {f.default} | <meaning> |"
        for p, f in declared.items()
        if p not in documented
    ]
    assert not missing, "docs/config.md lacks these fields:\n" + "\n".join(missing)
    unknown = sorted(set(documented) - set(declared))
    assert not unknown, f"docs/config.md lists fields config.yaml does not accept: {unknown}"
    for path, field in declared.items():
        row = documented[path]
        assert (row[1], row[2]) == (field.type, field.default), (
            f"docs/config.md, `{path}`: type and default are {field.type!r} and {field.default!r}, not "
            f"{row[1]!r} and {row[2]!r}"
        )
        assert row[3], f"docs/config.md, `{path}`: no meaning"


def test_config_reference_tracks_a_new_field() -> None:
    """The rendering the comparison relies on: a type in words, a default as YAML writes it."""
    fields = {f.path: f for f in config_fields()}
    assert fields["models.<name>.n_ctx"].default == "4096"
    assert fields["scaffold"].type == "`native`, `react`"
    assert fields["protocols"].default == "{legacy: {}}"
    assert fields["models.<name>.weights.sha256"].default == "required"
    assert "protocols.<name>.clean_kv" in fields


# ---------------------------------------------------------------- the trial record


def _event_classes() -> dict[str, type[Any]]:
    union = typing.get_args(rec.Event)[0]
    return {cls.model_fields["type"].default: cls for cls in typing.get_args(union)}


def test_record_reference_lists_every_field() -> None:
    text = (DOCS / "records.md").read_text()
    documented = [n for row in table_rows(section(text, "The trial record")) for n in names(row[0])]
    assert sorted(documented) == sorted(rec.TrialRecord.model_fields), (
        "docs/records.md, 'The trial record': fields differ from the record's: "
        f"missing {sorted(set(rec.TrialRecord.model_fields) - set(documented))}, "
        f"unknown {sorted(set(documented) - set(rec.TrialRecord.model_fields))}"
    )


def test_record_reference_lists_every_event_and_its_fields() -> None:
    rows = {
        names(r[0])[0]: names(r[1]) for r in table_rows(section((DOCS / "records.md").read_text(), "Events"))
    }
    classes = _event_classes()
    assert sorted(rows) == sorted(classes), (
        f"docs/records.md, 'Events': types {sorted(rows)}, not {sorted(classes)}"
    )
    for kind, cls in classes.items():
        fields = [f for f in cls.model_fields if f not in ("type", "t")]
        assert rows[kind] == fields, f"docs/records.md, event `{kind}`: fields {rows[kind]}, not {fields}"


def test_record_reference_lists_every_fingerprint_key() -> None:
    text = section((DOCS / "records.md").read_text(), "Fingerprint")
    documented = [n for row in table_rows(text) for n in names(row[0])]
    keys = list(trial_fingerprint("m", None, {}, 0.0, 0))
    assert sorted(documented) == sorted(keys), f"docs/records.md, 'Fingerprint': {documented}, not {keys}"


# ---------------------------------------------------------------- the README's findings


FINDINGS: dict[str, str] = {
    "1.6 %": "proto.cmp.full.primary.acc",
    "11.3 %": "proto.cmp.full.other.acc",
    "91.7 %": "fail.share.capability.qwen2-5-coder-1-5b",
    "2": "elig.n.eligible",
    "78": "elig.n.pairs",
}
"""Every number the README's findings quote, and the key whose printed text it is."""


def _numbers() -> dict[str, dict[str, Any]]:
    return {n["key"]: n for n in json.loads(PROVENANCE.read_text())["numbers"]}


def test_readme_findings_quote_the_paper() -> None:
    text = section(README.read_text(), "What it found")
    quoted = re.findall(r"(?<![\w.])\d[\d,.]*(?:\s?%)?", text)
    unknown = [q for q in quoted if q not in FINDINGS]
    assert not unknown, f"README's findings quote numbers without a key in FINDINGS: {unknown}"
    numbers = _numbers()
    for printed, key in FINDINGS.items():
        assert printed in quoted, f"FINDINGS lists {printed!r}, which the README no longer quotes"
        text_printed = numbers[key]["text"].replace("\\%", " %")
        assert text_printed == printed, (
            f"README quotes {printed!r}; paper/generated prints {key} as {text_printed!r}"
        )


def test_readme_figure_plots_the_papers_values() -> None:
    image = re.search(r"!\[[^\]]*\]\((docs/img/fig_\w+)\.png\)", README.read_text(), flags=re.S)
    assert image, "the README shows no figure from docs/img"
    values = json.loads((ROOT / f"{image.group(1)}.values.json").read_text())
    numbers = _numbers()
    stale = [
        k
        for k, v in values.items()
        if k not in numbers or not math.isclose(numbers[k]["value"], v, abs_tol=1e-12)
    ]
    name = Path(image.group(1)).name.removeprefix("fig_")
    assert values and not stale, (
        f"{image.group(1)}.png plots values that paper/generated no longer holds ({stale[:3]}...): redraw it with "
        f"`.venv/bin/slmbench figure {name} --out {image.group(1)}.png`"
    )


def _readme_block() -> dict[str, Any]:
    block = re.search(r"^```yaml\n(models:.*?)^```", README.read_text(), flags=re.S | re.M)
    assert block, "README shows no models block"
    parsed: dict[str, Any] = yaml.safe_load(block.group(1))
    return parsed


def _readme_models() -> dict[str, dict[str, Any]]:
    entries: dict[str, dict[str, Any]] = _readme_block()["models"]
    return entries


def test_readme_per_suite_tasks_are_valid_config() -> None:
    """The README's per-suite ``tasks:`` selects those tasks of each suite in the plan."""
    from slmbench.run.plan import selected_tasks

    tasks = _readme_block()["tasks"]
    config = parse_config({**yaml.safe_load((ROOT / "config.yaml").read_text()), "tasks": tasks})
    for suite, ids in tasks.items():
        assert list(selected_tasks(config, suite)) == ids


@pytest.mark.parametrize("name", ["my-gguf", "qwen2.5-7b", "my-server"])
def test_readme_model_entries_are_valid_config(name: str) -> None:
    entry = dict(_readme_models()[name])
    if isinstance(entry.get("weights"), dict):
        entry["weights"] = {**entry["weights"], "sha256": "0" * 64}  # the README's placeholder
    backend_settings(entry["backend"]).model_validate(entry)
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    try:
        parse_config({**config, "models": {**config["models"], name: entry}})
    except ConfigError as exc:
        pytest.fail(str(exc))


# ---------------------------------------------------------------- the documents themselves


def test_readme_is_a_short_manual() -> None:
    assert len(README.read_text().splitlines()) <= 150


def test_readme_indexes_every_document() -> None:
    index = section(README.read_text(), "Documentation")
    listed = {n for row in table_rows(index) for n in re.findall(r"\]\((docs/[\w/]+\.md)\)", row[0])}
    present = {str(p.relative_to(ROOT)) for p in DOCS.glob("*.md")} | {"docs/models.md"}
    assert listed == present, (
        f"README's index: missing {sorted(present - listed)}, extra {sorted(listed - present)}"
    )


def _links() -> list[tuple[Path, str]]:
    out = []
    for doc in [README, *sorted(DOCS.rglob("*.md"))]:
        for target in re.findall(r"\]\(([^)\s]+)\)", doc.read_text()):
            if not re.match(r"[a-z]+:", target) and not target.startswith("#"):
                out.append((doc, target.split("#")[0]))
    return out


@pytest.mark.parametrize(
    ("doc", "target"),
    [(d, t) for d, t in _links()],
    ids=[f"{d.relative_to(ROOT)}->{t}" for d, t in _links()],
)
def test_relative_links_resolve(doc: Path, target: str) -> None:
    assert (doc.parent / target).exists(), f"{doc.relative_to(ROOT)} links to {target}, which does not exist"


def test_every_benchmark_writes_a_figures_file_that_the_index_links() -> None:
    index = (DOCS / "benchmarks.md").read_text()
    for script in sorted((ROOT / "bench").glob("[!_]*.py")):
        figures = DOCS / "benchmarks" / f"{script.stem}.md"
        assert figures.exists(), f"no {figures.relative_to(ROOT)}"
        assert f"](benchmarks/{script.stem}.md)" in index, (
            f"docs/benchmarks.md does not link {script.stem}.md"
        )
        assert f'add_report_options(parser, "{script.stem}")' in script.read_text() or (
            f'add_report_options(cli, "{script.stem}")' in script.read_text()
        ), f"{script.name} does not write its figures (bench/_report.py)"
