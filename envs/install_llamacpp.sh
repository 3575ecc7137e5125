#!/usr/bin/env bash
# Build llama-cpp-python as the one portable build (code/slmbench/backends/llamacpp_build.py declares its CMake
# arguments: a fixed x86-64 instruction set, no native detection, no AVX-512, no AMX), so that one prompt gets one
# greedy reply on every host. The wheel is built once into a cache keyed by the version and the arguments
# (pip's own wheel cache does not key on CMAKE_ARGS); a stamp beside the installed package records the arguments,
# and an install without it, or with other arguments, is replaced.
set -euo pipefail
PY=${PY:-.venv/bin/python}
VERSION=$("$PY" -c "from slmbench.backends.llamacpp_build import LLAMA_CPP_PYTHON_VERSION as v; print(v)")
ARGS=$("$PY" -m slmbench.backends.llamacpp_build)
STAMP=slmbench-llamacpp-build.json
if "$PY" - "$VERSION" "$ARGS" "$STAMP" <<'PYEOF' 2>/dev/null; then
import json, pathlib, sys
import llama_cpp
stamp = pathlib.Path(llama_cpp.__file__).parent / sys.argv[3]
ok = llama_cpp.__version__ == sys.argv[1] and stamp.exists() and json.loads(stamp.read_text())["cmake_args"] == sys.argv[2]
sys.exit(0 if ok else 1)
PYEOF
  exit 0
fi
KEY=$(printf '%s' "$ARGS" | sha256sum | cut -c1-12)
WHEELS=${SLMBENCH_CACHE:-$HOME/.cache/slmbench}/wheels/llama-cpp-python-$VERSION-$KEY
if ! ls "$WHEELS"/llama_cpp_python-*.whl >/dev/null 2>&1; then
  echo "building llama-cpp-python $VERSION, portable build (compiles llama.cpp: about 5 minutes on 2 cores, once)"
  rm -rf "$WHEELS.partial" && mkdir -p "$WHEELS.partial"
  CMAKE_ARGS="$ARGS" CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) "$PY" -m pip wheel --quiet --no-cache-dir --no-deps -w "$WHEELS.partial" "llama-cpp-python==$VERSION"
  rm -rf "$WHEELS" && mv "$WHEELS.partial" "$WHEELS"
fi
"$PY" -m pip install --quiet --force-reinstall --no-deps "$WHEELS"/llama_cpp_python-*.whl
"$PY" - "$ARGS" "$STAMP" <<'PYEOF'
import json, pathlib, sys
import llama_cpp
stamp = pathlib.Path(llama_cpp.__file__).parent / sys.argv[2]
stamp.write_text(json.dumps({"cmake_args": sys.argv[1]}) + "\n")
PYEOF
