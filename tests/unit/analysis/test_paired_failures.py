"""The failed trials of a paired comparison with no accepted tool call, against the no-tool-call class: on the
scaffold comparison's synthetic trials (``tests/unit/analysis/topics/test_scaffold.py``) every failed native trial is a
clock failure, and the ones on tasks T3-T5 accepted no call (their attempts refused), so their share is
wider than the class share."""

from __future__ import annotations

import pandas as pd
import pytest
from tests.fixtures.topic_io import numbers_by_key
from tests.unit.analysis.topics.test_scaffold import PARAMS, trials

from slmbench.analysis.topics.scaffold import compute


def _with_calls() -> pd.DataFrame:
    df = trials()
    none_accepted = df["task_id"].isin(["T3", "T4", "T5"]) | (df["scaffold"] == "react") & ~df["passed"]
    return df.assign(n_tool_calls=(~none_accepted).astype(int) * 2)


def test_failed_pairs_with_no_accepted_call_per_scaffold_and_model() -> None:
    n = numbers_by_key(compute(_with_calls(), None, PARAMS))
    # native failures: a T1-T5, b T3-T5, base T0-T5 = 14, of which T3-T5 (3 per model) accepted no call: 9
    assert n["scaf.fail.primary.clock"] == 1.0 and n["scaf.fail.primary.no-tool-call"] == 0.0
    assert (n["scaf.fail.primary.no-accepted-call.k"], n["scaf.fail.primary.no-accepted-call.n"]) == (9, 14)
    assert n["scaf.fail.other.no-accepted-call"] == 1.0 and n["scaf.fail.other.no-accepted-call.n"] == 12
    assert n["scaf.model.a-1b.fail.primary.no-accepted-call.k"] == 3
    assert n["scaf.model.a-1b.fail.primary.no-accepted-call.n"] == 5
    assert n["scaf.model.a-1b.fail.primary.no-accepted-call"] == pytest.approx(0.6)
