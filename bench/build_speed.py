"""Prompt and generation tokens per second of the portable build against a native build on the same host.

The portable build is the venv's llama-cpp-python (code/slmbench/backends/llamacpp_build.py); the native one is the
same release compiled with ``-DGGML_NATIVE=ON`` for this CPU into a folder of its own:

    CMAKE_ARGS="-DGGML_NATIVE=ON" .venv/bin/python -m pip install --no-deps --no-cache-dir \\
        --target ~/.cache/slmbench/llama-native llama-cpp-python==0.3.36

Each measurement runs in a fresh process that imports one build (the native folder first on its path), loads the
model, evaluates a fixed prompt on an empty KV cache (prompt tokens/s) and generates 128 tokens with it cached
(generation tokens/s); the builds alternate (ABAB), and the printed ratios (portable / native) are medians over the
repeats. Run with nothing else busy on the machine:

    .venv/bin/python bench/build_speed.py [--models M ...] [--repeats 3] [--native DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from _report import Report, add_report_options

from slmbench.config import load_config
from slmbench.models.weights import cache_dir, weights_path

MEASURE = r"""
import json, sys, time
import llama_cpp
path, n_gen = sys.argv[1], int(sys.argv[2])
prompt = ("Here is a list of facts about lakes, rivers and mountains. "
          + " ".join(f"Fact {i}: the value of item {i} is {i * 7 % 31}." for i in range(40))
          + " Now write a long, detailed story about a journey along a river, at least two hundred words.")
llm = llama_cpp.Llama(model_path=path, n_ctx=2048, verbose=False)
tokens = llm.tokenize(prompt.encode())
started = time.perf_counter(); llm.eval(tokens); prompt_s = time.perf_counter() - started
started = time.perf_counter()
out = llm.create_completion(tokens, max_tokens=n_gen, temperature=0.0)
gen_s = time.perf_counter() - started
print(json.dumps({"file": llama_cpp.__file__, "info": llama_cpp.llama_print_system_info().decode().strip(),
                  "prompt_tps": len(tokens) / prompt_s, "gen_tps": out["usage"]["completion_tokens"] / gen_s}))
"""


def measure(model_path: Path, native: Path | None, n_gen: int = 128) -> dict[str, object]:
    """One measurement in a fresh process with the portable build (``native`` None) or the native one."""
    env = dict(os.environ)
    if native is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(native), env.get("PYTHONPATH", "")])
    out = subprocess.run([sys.executable, "-c", MEASURE, str(model_path), str(n_gen)], env=env, check=True,
                         capture_output=True, text=True).stdout  # fmt: skip
    return dict(json.loads(out.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--models", nargs="*", default=["qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b"])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--native", type=Path, default=cache_dir() / "llama-native")
    add_report_options(parser, "build_speed")
    args = parser.parse_args()
    if not (args.native / "llama_cpp").is_dir():
        parser.error(f"no native build in {args.native}: build it as the docstring shows")
    figures = Report("build_speed", args)
    config = load_config()
    print(f"{'model':<20} {'prompt t/s portable':>19} {'native':>7} {'ratio':>6}   {'gen t/s portable':>16} "
          f"{'native':>7} {'ratio':>6}")  # fmt: skip
    for model in args.models:
        path = weights_path(config.models[model])
        runs: dict[str, list[dict[str, object]]] = {"portable": [], "native": []}
        for _ in range(args.repeats):
            runs["portable"].append(measure(path, None))
            runs["native"].append(measure(path, args.native))
        med = {b: {k: statistics.median(float(r[k]) for r in rs) for k in ("prompt_tps", "gen_tps")}  # type: ignore[arg-type]
               for b, rs in runs.items()}  # fmt: skip
        print(
            f"{model:<20} {med['portable']['prompt_tps']:>19.1f} {med['native']['prompt_tps']:>7.1f} "
            f"{med['portable']['prompt_tps'] / med['native']['prompt_tps']:>6.3f}   "
            f"{med['portable']['gen_tps']:>16.1f} {med['native']['gen_tps']:>7.1f} "
            f"{med['portable']['gen_tps'] / med['native']['gen_tps']:>6.3f}",
            flush=True,
        )
    for build, rs in runs.items():
        print(f"{build}: {rs[0]['info']}")
    figures.write((__doc__ or "").splitlines()[0])


if __name__ == "__main__":
    main()
