"""Run files: header with fingerprint, resume skips recorded ids, corrupt lines name file:line, torn tails cut."""

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from slmbench.cli import main
from slmbench.eligibility.datasets import ApprovalItem, assign_split
from slmbench.eligibility.models import FakeLogitModel
from slmbench.eligibility.records import RunRecordError, read_run
from slmbench.eligibility.runner import Identity, run_task

ROOT = Path(__file__).parents[3]


def _items(n: int = 9) -> list[ApprovalItem]:
    return [
        ApprovalItem(
            id=f"c{i}", command=f"echo {i}", label="approve" if i % 3 else "deny", category="routine"
        )
        for i in range(n)
    ]


def _model() -> FakeLogitModel:
    model = FakeLogitModel()
    a = model.token_id("approve")

    def logits(text: str) -> np.ndarray:
        v = np.zeros(model.vocab, dtype=np.float32)
        v[a] = 1.0
        return v

    model.logit_fn = logits
    return model


def _run(out: Path, model: FakeLogitModel | None = None, style: str = "terse", limit: int | None = None):
    items = _items()
    split = assign_split("command_approval", items, 4)
    return run_task(
        model or _model(),
        Identity("fake-1b", weights_sha256="ab" * 32),
        "command_approval",
        style,
        items,
        split,
        4,
        out,
        limit=limit,
    )


def test_header_and_records(tmp_path: Path) -> None:
    out = tmp_path / "runs" / "command_approval_terse.jsonl"
    summary = _run(out)
    run = read_run(out)
    h = run.header
    assert summary.scored == 9 and summary.skipped == 0
    assert (h.task, h.prompt, h.model, h.quant, h.split_seed, h.n_items) == (
        "command_approval",
        "terse",
        "fake-1b",
        "shipped",
        4,
        9,
    )
    assert len(h.prompt_hash) == 64 and h.git_commit and h.packages and h.backend["backend"] == "fake"
    assert h.cache_check == {"item": "c0", "other": "c1", "max_abs_diff": 0.0}
    assert [r.id for r in run.items] == [f"c{i}" for i in range(9)]
    r = run.items[0]
    assert (
        r.prediction == "approve" and r.margin == pytest.approx(1.0) and r.correct == (r.label == "approve")
    )
    assert {r.split for r in run.items} == {"calibration", "test"}


def test_embedded_records_have_no_reply_fields(tmp_path: Path) -> None:
    """The logit rule generates no reply: its lines keep the fields they always had."""
    out = tmp_path / "run.jsonl"
    _run(out, limit=2)
    header, *records = (json.loads(line) for line in out.read_text().splitlines())
    assert header["scoring"] == "joint-loglik-trie-v1"
    assert records and all("generated" not in r and "match" not in r for r in records)
    assert all(r.valid for r in read_run(out).items)


def test_resume_skips_recorded_ids(tmp_path: Path) -> None:
    out = tmp_path / "run.jsonl"
    first = _run(out, limit=4)
    assert first.scored == 4 and len(read_run(out).items) == 4
    model = _model()
    second = _run(out, model=model)
    assert (second.scored, second.skipped) == (5, 4)
    assert model.n_prefix_evals == 1  # no cache check on resume; the prefix once
    ids = [r.id for r in read_run(out).items]
    assert ids == [f"c{i}" for i in range(9)] and len(set(ids)) == 9
    assert _run(out).scored == 0


def test_corrupt_line_names_file_and_line(tmp_path: Path) -> None:
    out = tmp_path / "run.jsonl"
    _run(out, limit=3)
    lines = out.read_text().splitlines()
    lines[2] = lines[2].replace('"prediction":"approve"', '"prediction":7')
    out.write_text("\n".join(lines) + "\n")
    with pytest.raises(RunRecordError, match=rf"{out}:3: schema-invalid: prediction"):
        read_run(out)
    lines[2] = "{not json"
    out.write_text("\n".join(lines) + "\n")
    with pytest.raises(RunRecordError, match=rf"{out}:3: not JSON"):
        read_run(out)
    with pytest.raises(RunRecordError, match=rf"{out}:3: not JSON"):
        _run(out)  # a resumed run refuses a corrupt file too


def test_duplicate_and_torn_lines(tmp_path: Path) -> None:
    out = tmp_path / "run.jsonl"
    _run(out, limit=2)
    lines = out.read_text().splitlines()
    out.write_text("\n".join([*lines, lines[1]]) + "\n")
    with pytest.raises(RunRecordError, match=rf"{out}:4: duplicate item c0"):
        read_run(out)
    out.write_text("\n".join(lines) + "\n" + lines[1][:20])  # a killed writer left half a line
    with pytest.raises(RunRecordError, match=rf"{out}:4: truncated line"):
        read_run(out)
    assert _run(out).scored == 7  # the torn tail is cut, the run completes
    assert len(read_run(out).items) == 9


def test_other_configuration_cannot_append(tmp_path: Path) -> None:
    out = tmp_path / "run.jsonl"
    _run(out, limit=2)
    with pytest.raises(RunRecordError, match="prompt, prompt_hash differ"):
        _run(out, style="rubric")


def test_open_model_checks_weights_before_loading(tmp_path: Path) -> None:
    from slmbench.eligibility.cli import open_model
    from slmbench.eligibility.quantize import QuantizeError
    from slmbench.models.weights import WeightsError

    with pytest.raises(QuantizeError, match="sidecar|missing"):
        open_model(ROOT / "config.yaml", "smollm2-135m", "Q2_K", tmp_path / "x.gguf", 1)
    with pytest.raises(WeightsError, match="missing"):
        open_model(ROOT / "config.yaml", "smollm2-135m", "shipped", tmp_path / "x.gguf", 1)


def test_run_cli_is_wired() -> None:
    result = CliRunner().invoke(main, ["eligibility", "run", "--help"])
    assert result.exit_code == 0 and "--prompt [terse|rubric|fewshot]" in result.output
    assert json.loads(json.dumps({"ok": True}))
