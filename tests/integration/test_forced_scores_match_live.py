"""Teacher forcing with the real model: the recorded replies of trials run on this build, scored again from the
records, give the live log-probabilities to the last bit (the replay evaluates as the live run did)."""

from __future__ import annotations

from pathlib import Path

import pytest

from slmbench.backends.llamacpp_build import installed_build
from slmbench.config import load_config, model_spec
from slmbench.models.registry import open_backend
from slmbench.models.weights import weights_path
from slmbench.records.ledger import iter_records
from slmbench.run.key import ShardKey
from slmbench.run.plan import shard_for
from slmbench.run.runner import run_settings
from slmbench.run.teacher_forcing import force_trial, report

ROOT = Path(__file__).resolve().parents[2]
SHARD = "smollm2-135m/capability_T0_native_repaired_p-full_rerun-portable"


@pytest.mark.model
def test_the_forced_log_probabilities_of_recorded_replies_equal_the_live_ones() -> None:
    config = load_config(ROOT / "config.yaml")
    key = ShardKey.from_name(SHARD)
    if not weights_path(config.models[key.model]).exists():
        pytest.skip(f"run `slmbench models fetch {key.model}` (make test does)")
    records = [
        r.model_dump(mode="json") for _, r in iter_records(ROOT / "data/raw/slmbench" / f"{SHARD}.jsonl")
    ]
    if records[0]["fingerprint"]["backend"]["build"]["identity"] != installed_build()["identity"]:
        pytest.skip("the records were run on another build than the installed one")
    run = run_settings(config, shard_for(config, key))
    backend = open_backend(key.model, model_spec(config, key.model))
    try:
        found = report(SHARD, "", {r["trial_id"]: force_trial(run, r, backend) for r in records[:3]})
    finally:
        backend.close()
    assert found["comparable_replies"] >= 3
    assert found["equal_replies"] == found["comparable_replies"], found["by_trial"]
