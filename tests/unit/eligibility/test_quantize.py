"""Requantisation parameters (llama.cpp's quantize params, requantisation allowed) and the checksum sidecar.

llama_model_quantize itself is not run here (it is CPU-heavy); only the parameters it would get are checked.
"""

import json
from pathlib import Path

import pytest

from slmbench.eligibility.layout import config_id, run_path, variant_path
from slmbench.eligibility.quantize import (
    QuantizeError,
    build_params,
    ftype,
    quantize_settings,
    read_sidecar,
    sidecar_path,
)
from slmbench.records.hashing import sha256_file
from slmbench.vocab import REQUANT_TYPES


def test_ftypes_match_llama_cpp() -> None:
    assert ftype("Q3_K_M") == 12 and ftype("Q2_K") == 10 and ftype("Q4_K_M") == 15
    assert all(isinstance(ftype(q), int) for q in REQUANT_TYPES)
    with pytest.raises(KeyError, match="unknown quantisation type"):
        ftype("Q9_Z")


def test_settings_allow_requantisation() -> None:
    s = quantize_settings("Q3_K_M", n_threads=2)
    assert s == {
        "ftype": 12, "nthread": 2, "allow_requantize": True, "quantize_output_tensor": True,
        "only_copy": False, "pure": False,
    }  # fmt: skip


def test_params_struct_carries_the_settings() -> None:
    params = build_params(quantize_settings("Q2_K", n_threads=3))
    assert (params.ftype, params.nthread, params.allow_requantize, params.pure) == (10, 3, True, False)
    assert params.quantize_output_tensor and not params.only_copy


def test_sidecar_hash_is_checked(tmp_path: Path) -> None:
    out = tmp_path / "m-Q2_K.gguf"
    out.write_bytes(b"GGUF fake weights")
    side = sidecar_path(out)
    assert side.name == "m-Q2_K.gguf.json"
    with pytest.raises(QuantizeError, match="missing"):
        read_sidecar(out)
    side.write_text(json.dumps({"type": "Q2_K", "output_sha256": sha256_file(out), "source_sha256": "00"}))
    assert read_sidecar(out)["type"] == "Q2_K"
    out.write_bytes(b"GGUF other weights")
    with pytest.raises(QuantizeError, match="does not match"):
        read_sidecar(out)


def test_layout_paths() -> None:
    assert config_id("qwen2.5-coder-1.5b") == "qwen2.5-coder-1.5b"
    assert config_id("qwen2.5-coder-1.5b", "Q3_K_M") == "qwen2.5-coder-1.5b-Q3_K_M"
    assert str(variant_path("gemma3-270m", "Q2_K")) == "data/models/gemma3-270m-Q2_K.gguf"
    assert str(run_path("gemma3-270m", "Q2_K", "reranking", "fewshot")) == (
        "data/raw/eligibility/gemma3-270m-Q2_K/reranking_fewshot.jsonl"
    )
