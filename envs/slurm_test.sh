#!/usr/bin/env bash
# `make slurm-test`: the smoke study (tests/integration/smoke_config.yaml: SmolLM2-135M on 3 tasks) through
# SLURM, trials and paper, on a private single-node cluster (envs/slurm_local.sh) that this script starts and
# stops (by PID, on any exit), in a temporary copy of the workflow as the smoke test makes it. Each Snakemake
# call runs under a hard `timeout -k 10 $SLURM_TIMEOUT` (a run whose status checks fail never ends, and
# SIGTERM only makes it wait for its jobs). Then `slmbench tidy` validates every record and
# tests/integration/slurm/check_study.py compares the records with the plan.
#   --plumbing   one trivial job instead (tests/integration/slurm/Snakefile: sized like the smoke shard, it
#                writes what SLURM granted; checked against what it asked): seconds, no model, no LaTeX.
# Settings: SLURM_PROFILE (default profiles/slurm-noacct), SLURM_TIMEOUT (seconds per call, default 900),
# SLMBENCH_PYTHON (default .venv/bin/python), KEEP=1 keeps the working copy of a passing run.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PY=${SLMBENCH_PYTHON:-$ROOT/.venv/bin/python}
BIN=$(dirname "$PY")
PROFILE=$ROOT/${SLURM_PROFILE:-profiles/slurm-noacct}
TIMEOUT=${SLURM_TIMEOUT:-900}
export PATH="$BIN:$PATH"
eval "$(bash envs/slurm_local.sh env)"
export SLURM_CONF

if bash envs/slurm_local.sh status >/dev/null 2>&1; then
  echo "slurm_test: a private cluster is already running; stop it first: envs/slurm_local.sh stop" >&2
  exit 1
fi
trap 'bash envs/slurm_local.sh stop' EXIT
trap 'exit 130' INT TERM
bash envs/slurm_local.sh start

WORK=$(mktemp -d "${TMPDIR:-/tmp}/slmbench-slurm-test.XXXXXX")
echo "slurm_test: working copy $WORK"
run() {  # target, log: one Snakemake call through the profile, under the hard timeout
  (cd "$WORK" && timeout -k 10 "$TIMEOUT" "$BIN/snakemake" "$1" --profile "$PROFILE") 2>&1 | tee "$WORK/$2"
}

if [ "${1:-}" = "--plumbing" ]; then
  (cd "$WORK" && timeout -k 10 "$TIMEOUT" "$BIN/snakemake" --snakefile "$ROOT/tests/integration/slurm/Snakefile" \
    --profile "$PROFILE") 2>&1 | tee "$WORK/probe.log"
  cat "$WORK/slurm_probe.txt"
  grep -q "submitted with SLURM jobid" "$WORK/probe.log"
  asked=$(sed -n 's/^asked *//p' "$WORK/slurm_probe.txt")
  granted=$(sed -n 's/^granted *//p' "$WORK/slurm_probe.txt")
  [ -n "$asked" ] && [ "$asked" = "$granted" ] || { echo "slurm_test: asked '$asked', granted '$granted'" >&2; exit 1; }
else
  "$PY" -m tests.integration.smoke_workdir "$WORK" >/dev/null
  run trials trials.log
  run paper paper.log
  (cd "$WORK" && "$PY" -m slmbench tidy --config config.yaml --raw-dir data/raw \
    --out-trials check/trials.parquet --out-events check/events.parquet --out-manifest check/manifest.json)
  "$PY" tests/integration/slurm/check_study.py "$WORK"
fi
echo "slurm_test: passed"
[ "${KEEP:-0}" = 1 ] || rm -rf "$WORK"
