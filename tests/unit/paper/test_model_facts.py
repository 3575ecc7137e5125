"""Each model's facts: where it ran from its backend's declared facts, what ran it from its primary trials'
records (the configuration where they record none), one file under two names, and one file in-process and served."""

from __future__ import annotations

from typing import Any

import pandas as pd

from slmbench.config import parse_config
from slmbench.paper.facts import study_facts
from slmbench.paper.model_facts import model_facts, same_file, served_pairs

SHA = "a" * 64
MODELS: dict[str, Any] = {
    "mine-gguf": {"backend": "llamacpp", "params_b": 0.1, "instruct": True, "quantisation": "Q8_0",
                  "weights": {"path": "/m.gguf", "sha256": SHA}},
    "mine-served": {"backend": "openai", "params_b": 0.1, "instruct": True, "base_url": "http://h:8080/v1",
                    "served_model": "m", "concurrency": 2},
    "copy-gguf": {"backend": "llamacpp", "params_b": 0.1, "instruct": True, "weights": {"path": "/c.gguf", "sha256": SHA}},
}  # fmt: skip
CONFIG = parse_config(
    {
        "schema_version": "1.0",
        "models": MODELS,
        "suites": ["capability"],
        "temperatures": [0.0],
        "scaffold": "native",
        "parser_mode": "repaired",
        "repeats": 1,
        "seed": 1,
        "max_turns": 3,
        "trial_budget_s": 60,
        "max_tokens": 64,
        "alpha": 0.05,
        "bootstrap_resamples": 100,
    }  # fmt: skip
)


def row(model: str, **identity: Any) -> dict[str, Any]:
    return {
        "study": "slmbench", "model": model, "suite": "capability", "dimension": None, "cpu": "X",
        "source_file": f"data/raw/slmbench/{model}/capability_T0_native_repaired.jsonl", "primary": True,
        **identity,
    }  # fmt: skip


def frame() -> pd.DataFrame:
    return pd.DataFrame([
        row("mine-gguf", file_sha256=SHA, native_tools=False, quantisation="Q8_0", concurrency=1),
        row("mine-served", file_sha256=SHA, native_tools=True, served_by="llama-server", server_build="b1",
            endpoint="http://h:8080/v1", quantisation="Q8_0", concurrency=2),
    ])  # fmt: skip


def test_where_each_model_ran_and_what_ran_it() -> None:
    models = {m.name: m for m in model_facts(CONFIG, frame())}
    gguf, served = models["mine-gguf"], models["mine-served"]
    assert gguf.in_process and gguf.engine == "llama.cpp" and gguf.native_tools == (False,)
    assert not served.in_process and served.server == "llama-server" and served.server_build == "b1"
    assert (served.endpoint, served.concurrency, served.native_tools) == ("http://h:8080/v1", 2, (True,))
    assert served.file_sha256 == SHA and gguf.quantisation == "Q8_0"
    unrecorded = models["copy-gguf"]  # no trials: what the configuration says
    assert unrecorded.file_sha256 == SHA and unrecorded.native_tools == () and unrecorded.served_by is None


def test_one_file_under_two_names_and_the_served_pair() -> None:
    models = model_facts(CONFIG, frame())
    assert same_file(models) == (("copy-gguf", "mine-gguf", "mine-served"),)
    assert served_pairs(models) == (("copy-gguf", "mine-served"),)  # the first in-process model by name
    facts = study_facts(CONFIG, frame())  # copy-gguf has no trials: the pair that ran is of mine-gguf
    assert facts.served_pairs == (("mine-gguf", "mine-served"),) and facts.has("twins")
    assert (
        "twins" not in facts.not_run
        and not facts.has("serving")
        and facts.same_file == (("copy-gguf", "mine-gguf", "mine-served"),)
    )
    alone = study_facts(CONFIG, frame()[lambda f: f["model"] != "mine-gguf"])
    assert alone.served_pairs == () and not alone.has("twins")
