#!/usr/bin/env bash
# The controller with many node daemons: NODES rotad on this host (as the tests
# run several), each its own node of 2 CPUs, registered with one rotactld.
# Measures the registration of all of them at start, the controller's CPU and
# memory while they send their heartbeats to an idle cluster, job throughput
# over all of them, and the storm after a controller restart (kill -9): the
# time until every node answers again and until a new job has run.
# docs/performance.md, "Many node daemons". Root (the daemons make cgroups).
#
#   bash bench/many_nodes.sh BIN_DIR [NODES]
#
# BIN_DIR: rotactld, rotad, rota-stepd, sbatch, sinfo, squeue, sdiag (a RelWithDebInfo
# build: `make build` puts them in build/bin). NODES: default 256.
# stdout: `name value unit` lines. stderr: progress.
set -euo pipefail
export LC_ALL=C

BIN="${1:?usage: many_nodes.sh BIN_DIR [NODES]}"
[[ "$BIN" == /* ]] || BIN="$PWD/$BIN"
NODES="${2:-256}"
for tool in rotactld rotad rota-stepd sbatch sinfo squeue sdiag; do
  [[ -x "$BIN/$tool" ]] || { echo "many_nodes: $BIN/$tool not found" >&2; exit 1; }
done
[[ "$(id -u)" == 0 ]] || { echo "many_nodes: run as root (cgroups)" >&2; exit 1; }

log() { echo "many_nodes: $*" >&2; }
WORK="$(mktemp -d /tmp/rota-many-nodes.XXXXXX)"
PREFIX="mn$$n"
CTLD_PID=""
NODE_PIDS=()
cleanup() {
  for pid in "${NODE_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  [[ -n "$CTLD_PID" ]] && kill "$CTLD_PID" 2>/dev/null || true
  for pid in "${NODE_PIDS[@]}" $CTLD_PID; do wait "$pid" 2>/dev/null || true; done
  for c in /sys/fs/cgroup/*/rota/"$PREFIX"*; do
    [[ -d "$c" ]] && find "$c" -depth -type d -exec rmdir {} \; 2>/dev/null
  done
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

port_free() { ! ss -Hltn "sport = :$1" 2>/dev/null | grep -q .; }
# A controller port and NODES consecutive node ports that nothing listens on,
# below the kernel's ephemeral range (32768 on): the daemons' own outgoing
# connections would take ports in it that a later rotad wants to listen on.
while :; do
  BASE=$((10000 + RANDOM % (32768 - 10000 - NODES - 1)))
  ok=1
  for ((p = BASE; p <= BASE + NODES; p++)); do port_free "$p" || { ok=0; break; }; done
  [[ $ok == 1 ]] && break
done
CTLD_PORT=$BASE

name() { printf '%s%04d' "$PREFIX" "$1"; }
{
  cat <<EOF
ClusterName=many
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmUser=root
AuthType=auth/slurm
AuthInfo=socket=$WORK/auth.socket
StateSaveLocation=$WORK/state
SlurmdSpoolDir=$WORK/spool/%n
SlurmdParameters=config_overrides
ProctrackType=proctrack/cgroup
TaskPlugin=task/cgroup
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SchedulerParameters=bf_interval=1
DefMemPerCPU=100
SlurmdTimeout=300
ReturnToService=2
MaxJobCount=200000
MaxArraySize=100001
MinJobAge=3600
NodeName=DEFAULT NodeAddr=127.0.0.1 CPUs=2 CoresPerSocket=2 RealMemory=1000 State=UNKNOWN
EOF
  for ((i = 1; i <= NODES; i++)); do echo "NodeName=$(name "$i") Port=$((BASE + i))"; done
  echo "PartitionName=all Nodes=$PREFIX[0001-$(printf %04d "$NODES")] Default=YES MaxTime=60"
} >"$WORK/slurm.conf"
printf 'ConstrainCores=no\nConstrainRAMSpace=no\nConstrainDevices=no\n' >"$WORK/cgroup.conf"
head -c 64 /dev/urandom >"$WORK/slurm.key"
chmod 600 "$WORK/slurm.key"
export SLURM_CONF="$WORK/slurm.conf"
mkdir -p "$WORK/log" "$WORK/out"
cd "$WORK/out"

now() { echo "$EPOCHREALTIME"; }
since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }'; }
# Nodes whose daemon answers: idle or allocated, without the '*' of a silent one.
answering() { "$BIN/sinfo" -h -N -o '%t' 2>/dev/null | grep -cE '^(idle|alloc|mix)$' || true; }
wait_until() {  # $1: shell condition, $2: seconds
  local end=$((SECONDS + $2))
  until eval "$1"; do
    ((SECONDS < end)) || return 1
    sleep 0.2
  done
}
# Registrations the controller took since it started (sdiag's RPC counts).
registrations() {
  "$BIN/sdiag" 2>/dev/null | sed -n 's/.*MESSAGE_NODE_REGISTRATION_STATUS.*count:\([0-9]*\).*/\1/p' |
    head -1 | grep . || echo 0
}
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
rss_mib() { awk '/VmRSS/ { printf "%.1f", $2 / 1024 }' "/proc/$1/status"; }

start_ctld() {
  # Every node daemon here connects from 127.0.0.1, which the controller
  # would cap at 256 connections (one peer address); real nodes are many.
  ROTA_RPC_MAX_CONNECTIONS_PER_PEER=$((2 * NODES + 256)) \
    "$BIN/rotactld" -f "$SLURM_CONF" >>"$WORK/log/rotactld.log" 2>&1 &
  CTLD_PID=$!
  wait_until '"$BIN/sinfo" -h >/dev/null 2>&1' 30 || { log "rotactld did not start"; exit 1; }
}

log "$NODES node daemons, controller port $CTLD_PORT, in $WORK"
start_ctld
t0=$(now)
for ((i = 1; i <= NODES; i++)); do
  "$BIN/rotad" -N "$(name "$i")" -f "$SLURM_CONF" >"$WORK/log/$(name "$i").log" 2>&1 &
  NODE_PIDS+=($!)
done
if ! wait_until '[ "$(answering)" -ge "$NODES" ]' "${MANY_NODES_WAIT:-600}"; then
  log "only $(answering) of $NODES nodes registered; sinfo, then the last node's log:"
  "$BIN/sinfo" -N 2>&1 | head -5 >&2
  grep -l -i error "$WORK"/log/"$PREFIX"*.log 2>/dev/null | head -1 | xargs -r tail -5 >&2
  tail -5 "$WORK/log/rotactld.log" >&2
  exit 1
fi
echo "many_nodes_${NODES}_registered_at_start $(since "$t0") s"

# An idle cluster: the controller's work is the nodes' heartbeats.
log "idle for 30 s"
sleep 5
c0=$(cpu_ticks "$CTLD_PID")
n0=0
for pid in "${NODE_PIDS[@]}"; do n0=$((n0 + $(cpu_ticks "$pid"))); done
sleep 30
c1=$(cpu_ticks "$CTLD_PID")
n1=0
for pid in "${NODE_PIDS[@]}"; do n1=$((n1 + $(cpu_ticks "$pid"))); done
hz=$(getconf CLK_TCK)
awk -v d=$((c1 - c0)) -v hz="$hz" -v n="$NODES" \
  'BEGIN { printf "many_nodes_%d_ctld_idle_cpu %.2f %%\n", n, 100 * d / hz / 30 }'
awk -v d=$((n1 - n0)) -v hz="$hz" -v n="$NODES" \
  'BEGIN { printf "many_nodes_%d_rotad_idle_cpu_each %.4f %%\n", n, 100 * d / hz / 30 / n }'
echo "many_nodes_${NODES}_ctld_rss $(rss_mib "$CTLD_PID") MiB"
total=0
for pid in "${NODE_PIDS[@]}"; do total=$(awk -v a="$total" -v b="$(rss_mib "$pid")" 'BEGIN { print a + b }'); done
awk -v t="$total" -v n="$NODES" 'BEGIN { printf "many_nodes_%d_rotad_rss_each %.1f MiB\n", n, t / n }'

# Throughput: two jobs per node at once (one CPU each), four per node in all.
JOBS=$((NODES * 4))
log "$JOBS jobs"
t0=$(now)
id=$("$BIN/sbatch" --parsable --array=1-"$JOBS" -o /dev/null --wrap=true)
wait_until '[ "$("$BIN/squeue" -h -t PD,R,CG -j "$id" | wc -l)" = 0 ]' 900 || log "jobs still queued"
awk -v n="$JOBS" -v a="$t0" -v b="$EPOCHREALTIME" -v nodes="$NODES" \
  'BEGIN { printf "many_nodes_%d_jobs_per_s %.0f jobs/s\n", nodes, n / (b - a) }'

# A controller restart under load of registrations: every node re-registers.
log "kill -9 rotactld, start it again"
kill -9 "$CTLD_PID"
wait "$CTLD_PID" 2>/dev/null || true
t0=$(now)
start_ctld
# The restarted controller asks every node to register again (and recovers
# their last state meanwhile): done when it has heard from each.
wait_until '[ "$(registrations)" -ge "$NODES" ]' 600 || log "only $(registrations) registrations"
echo "many_nodes_${NODES}_all_registered_after_restart $(since "$t0") s"
t1=$(now)
id=$("$BIN/sbatch" --parsable -o /dev/null --wrap=true)
wait_until '[ -z "$("$BIN/squeue" -h -t PD,R,CG -j "$id")" ]' 120 || log "job $id still queued"
echo "many_nodes_${NODES}_job_after_restart $(since "$t1") s"
