"""The embedded backend with a real model (SmolLM2-135M from PyPI), and the plain format for base models."""

import subprocess
import sys
import textwrap

import pytest

from slmbench.backends.base import GenerationOptions
from slmbench.backends.llamacpp_backend import render_plain
from slmbench.config import load_config
from slmbench.models.weights import WeightsError, verify, weights_path

SMOLLM = load_config("config.yaml").models["smollm2-135m"]
needs_model = pytest.mark.skipif(
    not weights_path(SMOLLM).exists(), reason="run `slmbench models fetch smollm2-135m` (make test does)"
)


def test_the_plain_format_is_role_blocks_ending_with_the_assistant_cue():
    text = render_plain([{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}])
    assert text == "System: Be brief.\n\nUser: Hi\n\nAssistant:"


def test_a_weights_file_with_the_wrong_hash_is_refused(tmp_path):
    bad = tmp_path / "x.gguf"
    bad.write_bytes(b"GGUF not really")
    with pytest.raises(WeightsError, match="does not match the pinned"):
        verify(SMOLLM, bad)


@needs_model
@pytest.mark.model
def test_a_real_decode_does_not_crash_the_process():
    """Runs the first decode in a child process: a segfault in a CPU kernel (e.g. the AMX one) shows as -11."""
    code = textwrap.dedent(
        """
        from slmbench.backends.base import GenerationOptions
        from slmbench.config import load_config
        from slmbench.models.registry import open_backend
        backend = open_backend("smollm2-135m", load_config("config.yaml").models["smollm2-135m"], n_ctx=512)
        reply = backend.chat([{"role": "user", "content": "Say hello."}], None, GenerationOptions(max_tokens=8))
        print("REPLY:" + reply.text)
        """
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"decode crashed (exit {proc.returncode}): {proc.stderr[-2000:]}"
    assert proc.stdout.split("REPLY:", 1)[1].strip()


@needs_model
@pytest.mark.model
def test_smollm2_answers_and_the_next_turn_reuses_the_kv_cache():
    from slmbench.models.registry import open_backend

    backend = open_backend("smollm2-135m", SMOLLM, n_ctx=1024)
    messages = [{"role": "user", "content": "What is the capital of France?"}]
    first = backend.chat(messages, None, GenerationOptions(max_tokens=12))
    assert first.text.strip() and first.completion_tokens > 0
    messages += [{"role": "assistant", "content": first.text}, {"role": "user", "content": "And of Italy?"}]
    second = backend.chat(messages, None, GenerationOptions(max_tokens=12))
    assert second.text.strip()
    assert second.cached_tokens >= first.prompt_tokens - 1, "the shared prefix was evaluated again"
    fingerprint = backend.fingerprint()
    assert fingerprint["backend_version"] and fingerprint["n_ctx"] == 1024
    backend.close()
