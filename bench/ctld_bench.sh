#!/usr/bin/env bash
# Controller benchmarks: command latency, submission throughput, memory and
# listing cost with 10,000 and 100,000 pending jobs, against a private rotactld
# on a free loopback port (auth/slurm, no node daemons, so held jobs stay
# pending). Builds nothing: pass the directory holding rotactld, sbatch, squeue
# and ctld_load (default build-bench/bin; configure it RelWithDebInfo).
#
#   bash bench/ctld_bench.sh [BIN_DIR]
#
# stdout: one `name value unit` line per figure. stderr: progress.
# Also writes bench/results/latest.json. Takes about a minute on 2 cores.
#
# Environment knobs:
#   CTLD_BENCH_ENVIRONMENT=1  ctld_load jobs carry this shell's environment
#   CTLD_BENCH_BIN_REV=REV    the source revision of BIN_DIR, for the JSON
#   CTLD_BENCH_MILLION=1      then on to a million jobs (arrays and singles): RSS,
#                             idle CPU, restart time and cancelling them all
#                             (about 2 GiB of controller memory, a few minutes)
set -euo pipefail
export LC_ALL=C  # EPOCHREALTIME and printf use '.' as the decimal point.

readonly REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="${1:-build-bench/bin}"
[[ "$BIN" == /* ]] || BIN="$PWD/$BIN"
readonly BIN
for tool in rotactld sbatch squeue ctld_load; do
  [[ -x "$BIN/$tool" ]] || { echo "ctld_bench: $BIN/$tool not found; build it first" >&2; exit 1; }
done

readonly LOAD_CONNECTIONS=16
readonly LOAD_WINDOW=64
# Jobs ctld_load submits carry no environment unless CTLD_BENCH_ENVIRONMENT=1,
# which attaches this shell's environment to each, as sbatch --export=ALL does.
LOAD_FLAGS=()
[[ "${CTLD_BENCH_ENVIRONMENT:-0}" == 1 ]] && LOAD_FLAGS=(--environment)
readonly LOAD_FLAGS

log() { echo "ctld_bench: $*" >&2; }

# ---------------------------------------------------------------- controller

WORK_DIR="$(mktemp -d "${TMPDIR:-/tmp}/rota-ctld-bench.XXXXXX")"
CTLD_PID=""
cleanup() {
  if [[ -n "$CTLD_PID" ]] && kill -0 "$CTLD_PID" 2>/dev/null; then
    kill "$CTLD_PID" 2>/dev/null || true
    wait "$CTLD_PID" 2>/dev/null || true
  fi
  rm -rf "$WORK_DIR"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() {
  python3 - <<'PY' 2>/dev/null && return
import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
PY
  # No python: a random high port that nothing listens on.
  local p
  while true; do
    p=$((20000 + RANDOM % 40000))
    ss -Hltn "sport = :$p" 2>/dev/null | grep -q . || { echo "$p"; return; }
  done
}

PORT="$(free_port)"
mkdir -p "$WORK_DIR/state"
cat >"$WORK_DIR/slurm.conf" <<EOF
ClusterName=bench
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$PORT
AuthType=auth/slurm
StateSaveLocation=$WORK_DIR/state
GresTypes=gpu
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=1024
MaxJobCount=$([[ "${CTLD_BENCH_MILLION:-0}" == 1 ]] && echo 2000000 || echo 200000)
MaxArraySize=100001
NodeName=n[1-4] CPUs=32 Sockets=2 CoresPerSocket=16 RealMemory=512000 Gres=gpu:a100:8
PartitionName=batch Nodes=ALL Default=YES MaxTime=1-00:00:00 DefaultTime=01:00:00
EOF
head -c 64 /dev/urandom >"$WORK_DIR/slurm.key"
chmod 600 "$WORK_DIR/slurm.key"
export SLURM_CONF="$WORK_DIR/slurm.conf"

log "starting rotactld on 127.0.0.1:$PORT in $WORK_DIR"
"$BIN/rotactld" -f "$SLURM_CONF" >"$WORK_DIR/rotactld.log" 2>&1 &
CTLD_PID=$!
for _ in $(seq 100); do
  "$BIN/squeue" >/dev/null 2>&1 && break
  kill -0 "$CTLD_PID" 2>/dev/null || { cat "$WORK_DIR/rotactld.log" >&2; exit 1; }
  sleep 0.1
done
"$BIN/squeue" >/dev/null || { log "rotactld does not answer"; exit 1; }

# ---------------------------------------------------------------- helpers

NAMES=()
VALUES=()
UNITS=()
figure() {  # name value unit
  NAMES+=("$1")
  VALUES+=("$2")
  UNITS+=("$3")
  echo "$1 $2 $3"
}

# Microseconds since the epoch, without forking.
now_us() { local t="$EPOCHREALTIME"; REPLY="${t/./}"; }

median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {
  if (NR % 2) print v[(NR+1)/2]; else printf "%.3f\n", (v[NR/2]+v[NR/2+1])/2 }'; }

ms() { awk -v us="$1" 'BEGIN { printf "%.2f", us/1000 }'; }
per_s() { awk -v n="$1" -v us="$2" 'BEGIN { printf "%.0f", n*1e6/us }'; }

# Wall time of one command in ms (into REPLY_MS); its stdout is discarded.
time_ms() {
  local a b
  now_us; a=$REPLY
  "$@" >/dev/null
  now_us; b=$REPLY
  REPLY_MS="$(ms $((b - a)))"
}

rss_mib() { awk '/^VmRSS:/ { printf "%.1f", $2/1024 }' "/proc/$CTLD_PID/status"; }
rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$CTLD_PID/status"; }

submit() { "$BIN/sbatch" --hold --wrap=true >/dev/null; }

# Job records the controller holds (a pending array is one record, as in Slurm).
job_records() { "$BIN/squeue" -h | wc -l; }

# Tops the queue up to $1 records with ctld_load; its figures go to $2.
fill_to() {
  local target=$1 out=$2 have need
  have=$(job_records)
  need=$((target - have))
  ((need > 0)) || { : >"$out"; return; }
  log "submitting $need held jobs with ctld_load ($LOAD_CONNECTIONS x $LOAD_WINDOW) to reach $target"
  "$BIN/ctld_load" -f "$SLURM_CONF" -c "$LOAD_CONNECTIONS" -w "$LOAD_WINDOW" -n "$need" \
    ${LOAD_FLAGS[@]+"${LOAD_FLAGS[@]}"} >"$out"
  # Checked from ctld_load's count, not with squeue, which would grow the
  # controller's memory before the RSS figures are taken.
  local accepted
  accepted=$(load_figure ctld_submit_accepted "$out")
  ((accepted == need)) || { log "only $accepted of $need submissions accepted"; exit 1; }
}

load_figure() { awk -v n="$1" '$1 == n { print $2 }' "$2"; }

# ---------------------------------------------------------------- idle

START_LOAD="$(cut -d' ' -f1-3 /proc/loadavg)"
log "load average at start: $START_LOAD"
sleep 0.5
RSS_IDLE_KIB=$(rss_kib)
figure ctld_rss_idle_mib "$(rss_mib)" MiB
figure job_env_bytes "$(env | wc -c)" bytes

# What starting any process costs here: the floor under every command figure.
samples=()
for _ in $(seq 20); do time_ms /bin/true; samples+=("$REPLY_MS"); done
figure spawn_baseline_ms "$(median "${samples[@]}")" ms

log "squeue latency (idle, 20 runs)"
samples=()
for _ in $(seq 20); do time_ms "$BIN/squeue"; samples+=("$REPLY_MS"); done
figure squeue_latency_ms "$(median "${samples[@]}")" ms

log "sbatch latency (idle, 20 runs)"
samples=()
for _ in $(seq 20); do time_ms submit; samples+=("$REPLY_MS"); done
figure sbatch_latency_ms "$(median "${samples[@]}")" ms

# ---------------------------------------------------------------- throughput

log "sbatch serial: 200 jobs, 3 runs"
samples=()
for _ in 1 2 3; do
  now_us; a=$REPLY
  for _ in $(seq 200); do submit; done
  now_us; b=$REPLY
  samples+=("$(per_s 200 $((b - a)))")
done
figure sbatch_serial_jobs_per_s "$(median "${samples[@]}")" jobs/s

log "sbatch concurrent: 4 loops x 100 jobs, 3 runs"
samples=()
for _ in 1 2 3; do
  now_us; a=$REPLY
  pids=()
  for _ in 1 2 3 4; do
    (for _ in $(seq 100); do submit || exit 1; done) &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || { log "a concurrent sbatch loop failed"; exit 1; }; done
  now_us; b=$REPLY
  samples+=("$(per_s 400 $((b - a)))")
done
figure sbatch_concurrent4_jobs_per_s "$(median "${samples[@]}")" jobs/s

log "sbatch --array=1-1000, 3 runs"
samples=()
for _ in 1 2 3; do
  time_ms "$BIN/sbatch" --hold --array=1-1000 --wrap=true
  samples+=("$REPLY_MS")
done
figure sbatch_array_1000_ms "$(median "${samples[@]}")" ms

# ---------------------------------------------------------------- 10,000 pending

fill_to 10000 "$WORK_DIR/load_10k.txt"
sleep 1  # Let the state loop's follow-up scheduling pass settle.
RSS_10K_KIB=$(rss_kib)
figure ctld_rss_10k_mib "$(rss_mib)" MiB
figure rss_per_pending_job_kb "$(awk -v a="$RSS_10K_KIB" -v b="$RSS_IDLE_KIB" \
  'BEGIN { printf "%.2f", (a-b)/10000 }')" KiB

log "squeue with 10,000 jobs, 5 runs"
samples=()
for _ in $(seq 5); do time_ms "$BIN/squeue"; samples+=("$REPLY_MS"); done
figure squeue_10k_ms "$(median "${samples[@]}")" ms
figure ctld_rss_10k_after_squeue_mib "$(rss_mib)" MiB

# ---------------------------------------------------------------- ceiling, 100,000 pending

# The ceiling run is also what grows the queue from 10,000 to 100,000 records.
fill_to 100000 "$WORK_DIR/load_100k.txt"
for f in ctld_submit_ceiling:jobs/s ctld_submit_p50_us:us ctld_submit_p99_us:us; do
  figure "${f%%:*}" "$(load_figure "${f%%:*}" "$WORK_DIR/load_100k.txt")" "${f#*:}"
done
sleep 1
figure ctld_rss_100k_mib "$(rss_mib)" MiB

log "squeue with 100,000 jobs, 3 runs"
samples=()
for _ in 1 2 3; do time_ms "$BIN/squeue"; samples+=("$REPLY_MS"); done
figure squeue_100k_ms "$(median "${samples[@]}")" ms
figure ctld_rss_100k_after_squeue_mib "$(rss_mib)" MiB

# Work the controller does on its own with 100,000 jobs and no requests
# (periodic scheduling passes and timers), in CPU ms per wall second.
log "idle controller CPU with 100,000 jobs (5 s)"
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$CTLD_PID/stat"; }
ticks_a=$(cpu_ticks)
now_us; a=$REPLY
sleep 5
ticks_b=$(cpu_ticks)
now_us; b=$REPLY
figure ctld_idle_cpu_100k_ms_per_s "$(awk -v t=$((ticks_b - ticks_a)) -v hz="$(getconf CLK_TCK)" \
  -v us=$((b - a)) 'BEGIN { printf "%.1f", t*1000/hz / (us/1e6) }')" ms/s

# The same load again on a queue of 100,000: how the ceiling falls with depth.
log "submitting 20000 more held jobs at 100,000 pending"
"$BIN/ctld_load" -f "$SLURM_CONF" -c "$LOAD_CONNECTIONS" -w "$LOAD_WINDOW" -n 20000 \
  ${LOAD_FLAGS[@]+"${LOAD_FLAGS[@]}"} >"$WORK_DIR/load_at_100k.txt"
figure ctld_submit_ceiling_at_100k "$(load_figure ctld_submit_ceiling "$WORK_DIR/load_at_100k.txt")" jobs/s
figure ctld_submit_p99_us_at_100k "$(load_figure ctld_submit_p99_us "$WORK_DIR/load_at_100k.txt")" us

# ---------------------------------------------------------------- a million jobs

restart_controller() {  # Stops rotactld (SIGTERM) and starts it on the same state.
  kill "$CTLD_PID"
  wait "$CTLD_PID" 2>/dev/null || true
  "$BIN/rotactld" -f "$SLURM_CONF" >>"$WORK_DIR/rotactld.log" 2>&1 &
  CTLD_PID=$!
  for _ in $(seq 3000); do
    "$BIN/squeue" -h -j 1 >/dev/null 2>&1 && return
    kill -0 "$CTLD_PID" 2>/dev/null || { tail -20 "$WORK_DIR/rotactld.log" >&2; exit 1; }
    sleep 0.1
  done
  log "rotactld did not answer within 300 s of its restart"
  exit 1
}

if [[ "${CTLD_BENCH_MILLION:-0}" == 1 ]]; then
  # 40 arrays of 10,000 tasks (a pending array is one record, as in Slurm) and
  # singles up to 600,000 records: about a million jobs.
  log "40 held arrays of 10,000 tasks"
  now_us; a=$REPLY
  for _ in $(seq 40); do "$BIN/sbatch" --hold --array=0-9999 --wrap=true >/dev/null; done
  now_us; b=$REPLY
  figure sbatch_array_10000_ms "$(ms $(((b - a) / 40)))" ms
  fill_to 600000 "$WORK_DIR/load_600k.txt"
  figure ctld_submit_ceiling_to_600k "$(load_figure ctld_submit_ceiling "$WORK_DIR/load_600k.txt")" jobs/s
  sleep 1
  jobs_in_queue=$("$BIN/squeue" -h -r -o %i | wc -l)
  figure ctld_jobs_1m "$jobs_in_queue" jobs
  figure ctld_rss_1m_mib "$(rss_mib)" MiB
  figure state_dir_1m_mib "$(du -sm "$WORK_DIR/state" | cut -f1)" MiB
  ticks_a=$(cpu_ticks); now_us; a=$REPLY
  sleep 5
  ticks_b=$(cpu_ticks); now_us; b=$REPLY
  figure ctld_idle_cpu_1m_ms_per_s "$(awk -v t=$((ticks_b - ticks_a)) -v hz="$(getconf CLK_TCK)" \
    -v us=$((b - a)) 'BEGIN { printf "%.1f", t*1000/hz / (us/1e6) }')" ms/s
  time_ms "$BIN/squeue"
  figure squeue_1m_ms "$REPLY_MS" ms

  log "restarting the controller on the state of a million jobs"
  now_us; a=$REPLY
  restart_controller
  now_us; b=$REPLY
  figure ctld_restart_1m_s "$(awk -v us=$((b - a)) 'BEGIN { printf "%.1f", us/1e6 }')" s
  figure ctld_rss_1m_after_restart_mib "$(rss_mib)" MiB
  after=$("$BIN/squeue" -h -r -o %i | wc -l)
  ((after == jobs_in_queue)) || { log "$jobs_in_queue jobs before the restart, $after after"; exit 1; }

  log "cancelling every job"
  time_ms "$BIN/scancel" -u "$(id -un)"
  figure scancel_all_1m_ms "$REPLY_MS" ms
  left=$("$BIN/squeue" -h -t PENDING -r -o %i | wc -l)
  ((left == 0)) || { log "$left jobs still pending after scancel"; exit 1; }
  sleep 1
  figure ctld_rss_1m_after_cancel_mib "$(rss_mib)" MiB
fi

# ---------------------------------------------------------------- results

mkdir -p "$REPO_ROOT/bench/results"
{
  printf '{\n'
  printf '  "date": "%s",\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  printf '  "script_git_rev": "%s",\n' "$(git -C "$REPO_ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  # The binaries may come from another checkout (or an export without .git).
  printf '  "bin_git_rev": "%s",\n' "${CTLD_BENCH_BIN_REV:-$(git -C "$BIN" rev-parse --short HEAD 2>/dev/null || echo unknown)}"
  printf '  "bin_dir": "%s",\n' "$BIN"
  printf '  "cpus": %s,\n' "$(nproc)"
  printf '  "load_average_at_start": "%s",\n' "$START_LOAD"
  printf '  "load_generator": "%s",\n' "ctld_load -c $LOAD_CONNECTIONS -w $LOAD_WINDOW${LOAD_FLAGS[*]+ ${LOAD_FLAGS[*]}}"
  printf '  "figures": {\n'
  for i in "${!NAMES[@]}"; do
    sep=','
    ((i == ${#NAMES[@]} - 1)) && sep=''
    printf '    "%s": {"value": %s, "unit": "%s"}%s\n' "${NAMES[$i]}" "${VALUES[$i]}" "${UNITS[$i]}" "$sep"
  done
  printf '  }\n}\n'
} >"$REPO_ROOT/bench/results/latest.json"
log "wrote $REPO_ROOT/bench/results/latest.json"
