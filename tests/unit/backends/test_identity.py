"""What a trial's fingerprint says ran it, read from committed records of each kind and from hand-made ones."""

from __future__ import annotations

import json
from pathlib import Path

from slmbench.backends.identity import run_identity, served_twins

ROOT = Path(__file__).resolve().parents[3]
RAW = ROOT / "data/raw/slmbench/qwen2.5-coder-0.5b"
SHA = "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"


def first(stem: str) -> dict:  # type: ignore[type-arg]
    return json.loads((RAW / f"{stem}.jsonl").read_text().splitlines()[0])


def test_an_in_process_trial_names_its_pinned_file_and_the_template_tools() -> None:
    record = first("capability_T0_native_repaired_p-full")
    got = run_identity(record["fingerprint"], record["provenance"]["settings"])
    assert (got.backend, got.file_sha256, got.native_tools) == ("llamacpp", SHA, True)
    assert got.served_by is None and got.endpoint is None and got.concurrency == 1
    assert got.quantisation == "mixed Q5_0/Q8_0/Q6_K/Q4_K (converted from an AWQ checkpoint)"


def test_a_served_trial_names_the_file_the_server_serves_and_the_server() -> None:
    record = first("capability_T0_native_repaired_p-full_srv-llama-server")
    fingerprint = {**record["fingerprint"], "weights_sha256": None, "quantisation": ""}
    got = run_identity(fingerprint, {**record["provenance"]["settings"], "concurrency": 2})
    assert (got.backend, got.file_sha256, got.native_tools) == ("openai", SHA, True)
    assert (got.served_by, got.server_build) == ("llama-server", "b1-0c1e570")
    assert got.endpoint == "http://127.0.0.1:53265/v1" and got.concurrency == 2
    assert got.quantisation == "Q4_K - Medium"  # as the server reports the file


def test_an_unknown_server_and_a_bare_fingerprint_name_nothing_they_do_not_record() -> None:
    served = {"backend": {"backend": "openai", "model_card": {"owned_by": "someone"}, "native_tools": False}}
    got = run_identity(served, {})
    assert got.served_by == "someone" and got.native_tools is False and got.file_sha256 is None
    bare = run_identity({"backend": {"backend": "scripted"}}, {})
    assert bare.served_by is None and bare.native_tools is None and bare.quantisation is None
    assert run_identity({"backend": {"backend": "openai"}}, {}).served_by is None


def test_a_served_model_pairs_with_the_first_in_process_model_of_its_file() -> None:
    models = [("b-gguf", True, "s"), ("served", False, "s"), ("a-gguf", True, "s"), ("other", False, "t"),
              ("lone", False, None), ("scripted", True, None)]  # fmt: skip
    assert served_twins(models) == (("a-gguf", "served"),)
    assert served_twins([("x", True, "s"), ("y", True, "s")]) == ()  # one file twice in-process: no pair
