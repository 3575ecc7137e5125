"""Derived files are written atomically, and JSON deterministically: sorted keys, floats at a stated precision."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from slmbench.records.atomic import FLOAT_DIGITS, dump_json, write_atomic


def test_json_documents_hold_floats_at_a_stated_precision() -> None:
    # the two sums of one Spearman bound that an Intel and an AMD CPU wrote before floats were rounded
    intel, amd = 0.037982157869405286, 0.03798215786940531
    assert dump_json({"v": intel}) == dump_json({"v": amd}) == '{\n "v": 0.0379821578694\n}\n'
    doc = {"k": [np.float64(2 / 3), 3, True, None, math.inf, 1e-300, -0.0, 123456789012345.6]}
    assert json.loads(dump_json(doc, compact=True))["k"] == [
        0.666666666667,
        3,
        True,
        None,
        None,
        1e-300,
        -0.0,
        123456789012000.0,
    ]
    assert FLOAT_DIGITS == 12


def test_a_failed_write_leaves_the_previous_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "sub" / "doc.json"
    write_atomic(target, "first\n")
    assert target.read_text() == "first\n"

    def fail(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr("os.replace", fail)
    with pytest.raises(OSError, match="disk full"):
        write_atomic(target, "second\n")
    assert target.read_text() == "first\n" and sorted(p.name for p in target.parent.iterdir()) == ["doc.json"]
