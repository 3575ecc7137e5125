#!/usr/bin/env bash
# Build llama.cpp's own `llama-server` from the llama.cpp sources vendored in the pinned llama-cpp-python sdist
# (the version envs/install_llamacpp.sh installs), as the same portable build, once, into the cache:
#   ${SLMBENCH_CACHE:-~/.cache/slmbench}/llama-server/<version>/llama-server (its CMake arguments beside it)
# Prints that path. `make llama-server` runs it; the served tests (`make test-served`) and
# bench/served_throughput.py start the binary. Takes minutes on 2 cores: run it under `nice`.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PY=${PY:-$ROOT/.venv/bin/python}
VERSION=$("$PY" -c "from slmbench.backends.llamacpp_build import LLAMA_CPP_PYTHON_VERSION as v; print(v)")
ARGS=$("$PY" -m slmbench.backends.llamacpp_build)
DEST=${SLMBENCH_CACHE:-$HOME/.cache/slmbench}/llama-server/$VERSION
BIN=$DEST/llama-server
# the stamp beside the binary holds the build's CMake arguments: a server of another build is rebuilt
if [ -x "$BIN" ] && [ "$(cat "$BIN.cmake-args" 2>/dev/null)" = "$ARGS" ] && "$BIN" --version >/dev/null 2>&1; then
  echo "$BIN"
  exit 0
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
echo "building llama-server from llama-cpp-python $VERSION's vendored llama.cpp (minutes)" >&2
# the sdist only: its build dependencies come as wheels (with `--no-binary :all:` pip would build each of them,
# and theirs, from source just to read the sdist's metadata)
"$PY" -m pip download --quiet --no-binary llama-cpp-python --no-deps "llama-cpp-python==$VERSION" -d "$WORK" >&2
tar -xzf "$WORK/llama_cpp_python-$VERSION.tar.gz" -C "$WORK"
SRC=$WORK/llama_cpp_python-$VERSION/vendor/llama.cpp
cmake -S "$SRC" -B "$WORK/build" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF -DLLAMA_CURL=OFF \
  -DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
  $ARGS >"$WORK/cmake.log" 2>&1 || { tail -30 "$WORK/cmake.log" >&2; exit 1; }
cmake --build "$WORK/build" --target llama-server -j "$(nproc)" >"$WORK/build.log" 2>&1 || { tail -40 "$WORK/build.log" >&2; exit 1; }
mkdir -p "$DEST"
cp "$WORK/build/bin/llama-server" "$BIN.partial"
printf '%s' "$ARGS" > "$BIN.cmake-args"
mv "$BIN.partial" "$BIN"
"$BIN" --version >&2
echo "$BIN"
