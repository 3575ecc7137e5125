#!/usr/bin/env bash
# A private single-node SLURM on localhost, to test the workflow's cluster path (`make slurm-test`).
#
#   envs/slurm_local.sh install   Debian's slurm-wlm and munge (apt-get; root)
#   envs/slurm_local.sh start     write the config, start munged, slurmctld and slurmd; wait until the node is idle
#   envs/slurm_local.sh stop      cancel this cluster's jobs, then end exactly the daemons `start` recorded
#   envs/slurm_local.sh status    the recorded daemons and `sinfo`
#   envs/slurm_local.sh env       the line to paste: `export SLURM_CONF=...` (client commands find the cluster)
#
# Everything lives in $SLMBENCH_SLURM_DIR (default /tmp/slmbench-slurm): slurm.conf, a munge key (created if
# absent) and its own munge socket, the controller's state, logs and the daemons' PIDs (pids/). No system
# service is touched, so a machine's own munge is left alone (choose other ports with
# SLMBENCH_SLURM_PORTS=ctld,d if 6817/6818 are taken). The one file outside: /etc/slurm/slurm.conf, a symlink
# to our slurm.conf made only where that file is absent and removed by `stop`, because the plugin's job step
# (snakemake-executor-plugin-slurm-jobstep 0.6.1) drops SLURM_CONF before its inner `srun`, which then finds
# no config. A machine that has its own /etc/slurm/slurm.conf is a cluster already: `start` refuses. One node named after `hostname -s`
# with the CPUs and memory `slurmd -C` reports, one partition (`debug`), accounting off (no slurmdbd: `sacct`
# fails, which is what profiles/slurm-noacct is for). Runs as root (slurmd starts jobs).
set -euo pipefail

DIR=${SLMBENCH_SLURM_DIR:-/tmp/slmbench-slurm}
PORTS=${SLMBENCH_SLURM_PORTS:-6817,6818}
WAIT_S=${SLMBENCH_SLURM_WAIT_S:-60}
CONF=$DIR/slurm.conf
SOCKET=$DIR/munge/munge.socket
ETC_CONF=/etc/slurm/slurm.conf
NODE=$(hostname -s)
export SLURM_CONF=$CONF

die() { echo "slurm_local: $*" >&2; exit 1; }
alive() { [ -s "$DIR/pids/$1" ] && kill -0 "$(cat "$DIR/pids/$1")" 2>/dev/null; }

install() {
  [ "$(id -u)" = 0 ] || die "installing needs root: apt-get install slurm-wlm munge"
  if command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v munged >/dev/null \
    && command -v sbatch >/dev/null; then
    return 0
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null
}

write_conf() {
  local node_line ctld_port d_port
  node_line=$(slurmd -C | head -n 1)  # NodeName=<host> CPUs=.. Boards=.. ... RealMemory=..
  [[ $node_line == NodeName=* ]] || die "slurmd -C printed no node line: $node_line"
  ctld_port=${PORTS%,*}
  d_port=${PORTS#*,}
  cat >"$CONF" <<EOF
# Written by envs/slurm_local.sh: a private one-node cluster on localhost, accounting off.
ClusterName=slmbench
SlurmctldHost=$NODE(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$d_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$SOCKET
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/run/slurmctld.pid
SlurmdPidFile=$DIR/run/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=1000
ReturnToService=2
MinJobAge=300
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
$node_line NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=debug Nodes=$NODE Default=YES MaxTime=INFINITE State=UP
EOF
}

start_daemon() {  # name, command...: run in the foreground of a background job, record its PID
  local name=$1
  shift
  nohup "$@" </dev/null >"$DIR/log/$name.out" 2>&1 &
  echo $! >"$DIR/pids/$name"
}

tail_logs() {
  local f
  for f in "$DIR"/log/*; do
    echo "== $f" >&2
    tail -n 15 "$f" >&2 || true
  done
}

start() {
  [ "$(id -u)" = 0 ] || die "run as root (slurmd starts the jobs)"
  command -v slurmctld >/dev/null || die "SLURM is not installed: envs/slurm_local.sh install"
  if alive munged && alive slurmctld && alive slurmd; then
    echo "slurm_local: already running ($DIR)"
    return 0
  fi
  stop >/dev/null 2>&1 || true
  if [ -e "$ETC_CONF" ] || [ -L "$ETC_CONF" ]; then
    [ "$(readlink "$ETC_CONF" || true)" = "$CONF" ] || die "$ETC_CONF exists: this machine has a SLURM already"
  fi
  mkdir -p "$DIR"/{state,spool,log,run,pids,munge}
  chmod 755 "$DIR"
  chmod 700 "$DIR/munge"
  rm -f "$DIR"/log/* "$DIR"/pids/*
  write_conf
  mkdir -p "$(dirname "$ETC_CONF")"
  ln -sfn "$CONF" "$ETC_CONF"
  if [ ! -s "$DIR/munge.key" ]; then
    if command -v mungekey >/dev/null; then
      mungekey --create --keyfile="$DIR/munge.key"
    else  # munge before 0.5.14
      dd if=/dev/urandom of="$DIR/munge.key" bs=1024 count=1 status=none
    fi
  fi
  chmod 600 "$DIR/munge.key"
  start_daemon munged munged --foreground --force --socket="$SOCKET" --key-file="$DIR/munge.key" \
    --pid-file="$DIR/run/munged.pid" --log-file="$DIR/log/munged.log" --seed-file="$DIR/munge/seed"
  local i
  for ((i = 0; i < WAIT_S * 2; i++)); do
    munge --socket="$SOCKET" -n 2>/dev/null | unmunge --socket="$SOCKET" >/dev/null 2>&1 && break
    alive munged || { tail_logs; die "munged exited"; }
    sleep 0.5
  done
  munge --socket="$SOCKET" -n | unmunge --socket="$SOCKET" >/dev/null || { tail_logs; die "munge does not answer"; }
  # -c: start from a clean state (no jobs of an earlier test); -D: stay in the foreground (our PID is theirs)
  start_daemon slurmctld slurmctld -D -c -f "$CONF"
  start_daemon slurmd slurmd -D -N "$NODE" -f "$CONF"
  local state=""
  for ((i = 0; i < WAIT_S * 2; i++)); do
    state=$(sinfo -h -n "$NODE" -o %t 2>/dev/null || true)
    [ "$state" = idle ] && break
    alive slurmctld && alive slurmd || break
    sleep 0.5
  done
  if [ "$state" != idle ]; then
    tail_logs
    stop || true
    die "the node did not become idle within ${WAIT_S}s (state: '${state:-none}')"
  fi
  echo "slurm_local: node $NODE idle; export SLURM_CONF=$CONF"
}

stop_pid() {  # name: TERM the recorded PID, wait up to 10 s, then KILL
  local name=$1 pid i
  [ -s "$DIR/pids/$name" ] || return 0
  pid=$(cat "$DIR/pids/$name")
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 20; i++)); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.5
    done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
    echo "slurm_local: stopped $name ($pid)"
  fi
  rm -f "$DIR/pids/$name"
}

stop() {
  if alive slurmctld; then
    local jobs
    jobs=$(squeue -h -o %i 2>/dev/null || true)
    if [ -n "$jobs" ]; then
      # shellcheck disable=SC2086  # one job id per word
      scancel $jobs 2>/dev/null || true
      sleep 2
    fi
  fi
  stop_pid slurmd
  stop_pid slurmctld
  stop_pid munged
  if [ -L "$ETC_CONF" ] && [ "$(readlink "$ETC_CONF")" = "$CONF" ]; then
    rm -f "$ETC_CONF"
  fi
}

status() {
  local name rc=0
  for name in munged slurmctld slurmd; do
    if alive "$name"; then
      echo "$name: running ($(cat "$DIR/pids/$name"))"
    else
      echo "$name: not running"
      rc=1
    fi
  done
  [ $rc = 0 ] && sinfo
  return $rc
}

case "${1:-}" in
  install) install ;;
  start) start ;;
  stop) stop ;;
  status) status ;;
  env) echo "export SLURM_CONF=$CONF" ;;
  *) die "usage: $0 install|start|stop|status|env" ;;
esac
