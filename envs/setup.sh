#!/usr/bin/env bash
# One-time set-up on a fresh machine: .venv with the pinned lock, the package, llama-cpp-python as the one portable
# build, and with --latex LaTeX, with --browser Chromium and chromedriver for the site's browser test
# (envs/system_packages.sh, which runs beside the Python set-up: apt downloads while llama.cpp compiles).
set -euo pipefail
cd "$(dirname "$0")/.."
for flag in "$@"; do
  case "$flag" in
    --latex | --browser) ;;
    *) echo "setup.sh: unknown option $flag (expected --latex, --browser)" >&2; exit 2 ;;
  esac
done
bash envs/system_packages.sh "$@" &
system=$!
PYTHON=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
# every-eval-ever declares Python >= 3.12 but runs on 3.11 (tests/unit/formats use it): the lock's pin goes in.
PIP_IGNORE_REQUIRES_PYTHON=1 .venv/bin/python -m pip install --quiet -r envs/requirements.lock
.venv/bin/python -m pip install --quiet --no-deps -e .
bash envs/install_llamacpp.sh
wait "$system"
