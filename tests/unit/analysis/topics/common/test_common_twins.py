"""One file run by two models of the study, in-process and served (their records name one sha256): paired task
by task, exact McNemar against scipy's binomial test, the pairs with the same outcome, and its table."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
from scipy.stats import binomtest
from tests.fixtures.topic_io import numbers_by_key, write_topic

from slmbench.analysis.topics.common.twins import twin_models
from slmbench.analysis.topics.serving import compute
from slmbench.figures.tables import render_table

PARAMS: dict[str, Any] = {"bootstrap_seed": 3, "n_boot": 50}
# model -> (backend, file, served_by, passes over tasks T0..T7)
MODELS = {
    "mine-gguf": ("llamacpp", "s", None, [1, 1, 1, 0, 0, 0, 1, 1]),
    "mine-served": ("openai", "s", "llama-server", [1, 0, 0, 0, 0, 0, 1, 1]),
    "other": ("llamacpp", "t", None, [0, 0, 0, 0, 0, 0, 0, 0]),
    "elsewhere": ("openai", "u", "vLLM", [1, 1, 1, 1, 1, 1, 1, 1]),  # a file no model ran in-process
}


def trials() -> pd.DataFrame:
    rows = []
    for model, (backend, sha, server, passes) in MODELS.items():
        for i, ok in enumerate(passes):
            rows.append({
                "trial_id": f"slmbench/{model}/T{i}", "study": "slmbench", "suite": "capability", "task_id": f"T{i}",
                "group": "G", "variant": "original", "model": model, "params_b": 0.5, "is_base": False,
                "temperature": 0.0, "repeat": 0, "scaffold": "native", "parser_mode": "repaired",
                "protocol": "full", "outcome": "success" if ok else "failure", "passed": bool(ok),
                "failure_class": None if ok else "capability", "primary": True, "cpu_primary": True,
                "comparison": None, "server": None, "n_ctx": 4096, "stop_reason": "final_answer",
                "cpu": "AMD EPYC", "build": "native/AMD EPYC", "rerun": None, "n_tool_calls": 1,
                "backend": backend, "file_sha256": sha, "served_by": server,
            })  # fmt: skip
    null = {**rows[8], "trial_id": "slmbench/mine-served/null", "suite": "null_control"}
    return pd.DataFrame([*rows, null])  # the null control's reruns are no pair


def test_a_served_model_pairs_with_the_in_process_model_of_its_file() -> None:
    assert twin_models(trials()) == (("mine-gguf", "mine-served"),)
    assert twin_models(trials().drop(columns=["file_sha256"])) == ()  # a table from before the column


def test_the_pair_is_compared_task_by_task(tmp_path: Path) -> None:
    result = compute(trials(), None, PARAMS)
    got = numbers_by_key(result)
    assert got["twin.n.pairs"] == 8 and got["twin.n.same"] == 6 and got["twin.model.mine-gguf.n.same"] == 6
    assert (got["twin.n.only-primary"], got["twin.n.only-other"]) == (2, 0)
    assert abs(got["twin.mcnemar.p"] - binomtest(0, 2, 0.5).pvalue) < 1e-12
    assert got["twin.other.name"] == "llama-server" and got["twin.model.mine-gguf.served"] == "mine-served"
    assert not any(k.startswith(("twin.model.other", "twin.model.elsewhere")) for k in got)
    assert not [k for k in got if k.startswith("srv.model.")]  # nothing the plan served
    doc = json.loads(write_topic(tmp_path / "serving.json", "serving", result, trials()).read_text())
    table = render_table("served_twins", doc)
    assert "mine-gguf / mine-served & 8 &" in table and "marked" not in table


def test_a_study_without_such_a_pair_has_no_twin_key() -> None:
    one = trials()[lambda t: t["model"] != "mine-gguf"]
    assert not [k for k in numbers_by_key(compute(one, None, PARAMS)) if k.startswith("twin.")]
