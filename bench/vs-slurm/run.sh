#!/usr/bin/env bash
# Rota against real Slurm 22.05 on this machine, side by side: two clusters of the same layout
# (bench/vs-slurm/cluster.sh), the same workloads, each figure measured interleaved (Rota, Slurm,
# Slurm, Rota, ...) ROUNDS times. Installs Slurm from Debian's packages when it is missing (root).
# Not part of `make test`; `make bench-vs-slurm` runs it.
#
#   bash bench/vs-slurm/run.sh [ROTA_BIN]      (default build/bin, a RelWithDebInfo build)
#
# stdout: `name value unit` lines: FIGURE_rota, FIGURE_slurm (medians) and FIGURE_ratio
# (Rota/Slurm of the medians, with the spread of the per-round ratios); also
# bench/results/vs-slurm.json. Knobs: VS_ROUNDS (5), VS_PENDING (10000), VS_E2E_JOBS (1000),
# VS_ONLY (groups of figures to run: submit launch e2e pending; all by default).
set -euo pipefail
export LC_ALL=C
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
ROTA_BIN="${1:-$REPO/build/bin}"
case "$ROTA_BIN" in /*) ;; *) ROTA_BIN="$REPO/$ROTA_BIN" ;; esac
ROUNDS="${VS_ROUNDS:-5}"
PENDING="${VS_PENDING:-10000}"
E2E_JOBS="${VS_E2E_JOBS:-1000}"
ONLY="${VS_ONLY:-}"  # some of: submit launch e2e pending (all when empty)

log() { echo "vs-slurm: $*" >&2; }
die() { log "$*"; exit 1; }
# shellcheck source=bench/vs-slurm/rounds.sh
source "$HERE/rounds.sh"

[ "$(id -u)" = 0 ] || die "needs root (slurmd and rotad make cgroups and device nodes)"
for t in rotactld rotad sbatch squeue srun scancel sinfo; do
  [ -x "$ROTA_BIN/$t" ] || die "$ROTA_BIN/$t not found: make build first"
done
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || [ ! -x /usr/bin/sbatch ]; then
  log "installing Slurm 22.05 from Debian's packages"
  apt-get install -y -q --no-install-recommends slurmctld slurmd slurm-client munge >/dev/null 2>&1 || {
    apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends slurmctld slurmd slurm-client munge >/dev/null
  } || die "could not install slurmctld slurmd slurm-client munge"
fi

WORK="$(mktemp -d /var/tmp/rota-vs-slurm.XXXXXX)"
chmod 0755 "$WORK"
cleanup() {
  bash "$HERE/cluster.sh" down "$WORK/rota" 2>/dev/null || true
  bash "$HERE/cluster.sh" down "$WORK/slurm" 2>/dev/null || true
  bash "$HERE/cluster.sh" down "$WORK" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port_block() {  # a port P with P..P+4 free on loopback
  local p
  while true; do
    p=$((10000 + RANDOM % 22000))  # below the ephemeral range (32768-60999) that clients take
    local busy=0 i
    for i in 0 1 2 3 4; do (exec 3<>"/dev/tcp/127.0.0.1/$((p + i))") 2>/dev/null && busy=1; done
    [ "$busy" = 0 ] && { echo "$p"; return; }
  done
}

bash "$HERE/cluster.sh" munge "$WORK"
mkdir -p "$WORK/rota" "$WORK/slurm"
bash "$HERE/cluster.sh" up slurm "$WORK/slurm" "$(free_port_block)" /usr/sbin "$WORK/munge/sock"
bash "$HERE/cluster.sh" up rota "$WORK/rota" "$(free_port_block)" "$ROTA_BIN" "$WORK/munge/sock"
cd "$WORK"  # job output lands here

# The commands of one kind, against its cluster.
use() {
  KIND="$1"
  export SLURM_CONF="$WORK/$KIND/slurm.conf"
  if [ "$KIND" = slurm ]; then CMD=/usr/bin; else CMD="$ROTA_BIN"; fi
}
queue_len() { "$CMD/squeue" -h -t "$1" -o %i -r 2>/dev/null | wc -l; }
wait_empty() {  # until nothing is pending, running or completing (at most $1 s)
  local deadline=$((SECONDS + $1))
  while [ "$(queue_len PD,R,CG,S)" != 0 ]; do
    [ $SECONDS -lt $deadline ] || { log "$KIND: queue not empty after $1 s"; return 1; }
    sleep 0.05
  done
}
clear_queue() { "$CMD/scancel" -u root 2>/dev/null || true; wait_empty 120; }

# ---- figures: each prints one number for the current kind

fig_sbatch_ms() {  # median of 9 single held submissions
  local i t
  for i in $(seq 9); do t=$(now); "$CMD/sbatch" --hold -o /dev/null --wrap true >/dev/null; ms_since "$t"; echo; done | median
}
fig_squeue_ms() {  # median of 9 listings of a near-empty queue
  local i t
  for i in $(seq 9); do t=$(now); "$CMD/squeue" >/dev/null; ms_since "$t"; echo; done | median
}
fig_sbatch_serial_jobs_per_s() {
  local n=200 t i
  t=$(now)
  for ((i = 0; i < n; i++)); do "$CMD/sbatch" --hold -o /dev/null --wrap true >/dev/null; done
  awk -v n=$n -v ms="$(ms_since "$t")" 'BEGIN { printf "%.0f\n", n / ms * 1000 }'
}
fig_sbatch_8clients_jobs_per_s() {
  local per=60 t c
  t=$(now)
  for c in 1 2 3 4 5 6 7 8; do
    (for ((i = 0; i < per; i++)); do "$CMD/sbatch" --hold -o /dev/null --wrap true >/dev/null; done) &
  done
  wait
  awk -v n=$((per * 8)) -v ms="$(ms_since "$t")" 'BEGIN { printf "%.0f\n", n / ms * 1000 }'
}
fig_array1000_ms() {
  local t
  t=$(now); "$CMD/sbatch" --hold --array=1-1000 -o /dev/null --wrap true >/dev/null; ms_since "$t"; echo
}
e2e_jobs_per_s() {  # an array of trivial jobs from submission to the last one gone; sbatch options
  local t
  clear_queue
  t=$(now)
  "$CMD/sbatch" --array=1-"$E2E_JOBS" -o /dev/null "$@" --wrap true >/dev/null
  wait_empty 600
  awk -v n="$E2E_JOBS" -v ms="$(ms_since "$t")" 'BEGIN { printf "%.1f\n", n / ms * 1000 }'
}
fig_e2e_jobs_per_s() { e2e_jobs_per_s; }
fig_e2e_gpu_jobs_per_s() { e2e_jobs_per_s --gpus=1; }
srun_in_job_ms() {  # TASKS: a step of TASKS tasks inside a running 2-node job, median of 5
  local tasks="$1" id i t
  id=$("$CMD/sbatch" --parsable -N2 -n64 -o /dev/null --wrap 'sleep 600')
  local deadline=$((SECONDS + 60))
  until [ "$("$CMD/squeue" -h -j "$id" -o %T 2>/dev/null)" = RUNNING ]; do
    [ $SECONDS -lt $deadline ] || { log "$KIND: job $id did not start"; echo nan; return; }
    sleep 0.1
  done
  for i in 1 2 3 4 5; do
    t=$(now)
    "$CMD/srun" --jobid="$id" --overlap -n"$tasks" true >/dev/null 2>&1 || log "$KIND: srun -n$tasks failed"
    ms_since "$t"; echo
  done | median
  "$CMD/scancel" "$id"
}
fig_srun_ms() { srun_in_job_ms 1; }
fig_srun8_ms() { srun_in_job_ms 8; }
fig_srun64_ms() { srun_in_job_ms 64; }
fig_launch_ms() {  # submission to the job's first instruction on an idle cluster, median of 5
  local i t f start
  for i in 1 2 3 4 5; do
    f="$WORK/launch.$KIND.$i"
    rm -f "$f"
    t=$(now)
    "$CMD/sbatch" -o /dev/null --wrap "date +%s.%N >$f.tmp && mv $f.tmp $f" >/dev/null
    local deadline=$((SECONDS + 30))
    until [ -s "$f" ]; do
      [ $SECONDS -lt $deadline ] || { log "$KIND: job did not start"; break; }
      sleep 0.002
    done
    start=$(cat "$f" 2>/dev/null || echo nan)
    awk -v a="$t" -v b="$start" 'BEGIN { printf "%.2f\n", (b - a) * 1000 }'
    wait_empty 30
  done | median
}
fill_pending() {  # PENDING held jobs, 8 submitters
  local per=$((PENDING / 8)) c
  for c in 1 2 3 4 5 6 7 8; do
    (for ((i = 0; i < per; i++)); do "$CMD/sbatch" --hold -o /dev/null --wrap true >/dev/null; done) &
  done
  wait
}
fig_squeue_pending_ms() {
  local i t
  for i in 1 2 3; do t=$(now); "$CMD/squeue" >/dev/null; ms_since "$t"; echo; done | median
}
fig_ctld_rss_mib() {
  awk '/^VmRSS/ { printf "%.1f\n", $2 / 1024 }' "/proc/$(cat "$WORK/$KIND/pids/ctld")/status"
}

# ---- rounds: Rota and Slurm alternate, the first of each round alternating too

rounds_start "$WORK"

wanted() { [ -z "$ONLY" ] || [[ " $ONLY " == *" $1 "* ]]; }
clear_both() { for k in rota slurm; do use "$k"; clear_queue; done; }

if wanted submit; then
  run_rounds sbatch_ms squeue_ms sbatch_serial_jobs_per_s sbatch_8clients_jobs_per_s array1000_ms
  clear_both
fi
if wanted launch; then
  run_rounds launch_ms srun_ms srun8_ms srun64_ms
  clear_both
fi
if wanted e2e; then
  run_rounds e2e_jobs_per_s e2e_gpu_jobs_per_s
  clear_both
fi
if wanted pending; then
  for k in rota slurm; do
    use "$k"; clear_queue
    t=$(now); fill_pending; log "$k: $PENDING held jobs submitted in $(ms_since "$t") ms"
  done
  run_rounds squeue_pending_ms ctld_rss_mib
  clear_both
fi

# ---- report

declare -A UNIT=([sbatch_ms]=ms [squeue_ms]=ms [sbatch_serial_jobs_per_s]=jobs/s
  [sbatch_8clients_jobs_per_s]=jobs/s [array1000_ms]=ms [launch_ms]=ms [srun_ms]=ms [srun8_ms]=ms [srun64_ms]=ms [e2e_jobs_per_s]=jobs/s [e2e_gpu_jobs_per_s]=jobs/s
  [squeue_pending_ms]=ms [ctld_rss_mib]=MiB)
for f in sbatch_ms squeue_ms sbatch_serial_jobs_per_s sbatch_8clients_jobs_per_s array1000_ms launch_ms srun_ms srun8_ms srun64_ms \
  e2e_jobs_per_s e2e_gpu_jobs_per_s squeue_pending_ms ctld_rss_mib; do
  awk -v f="$f" '$1 == f { found = 1 } END { exit !found }' "$RESULTS" || continue  # not run
  name="$f"
  [ "$f" = squeue_pending_ms ] && name="squeue_${PENDING}_pending_ms"
  [ "$f" = ctld_rss_mib ] && name="ctld_rss_${PENDING}_pending_mib"
  summarize "$f" "$name" "${UNIT[$f]}"
done
mkdir -p "$REPO/bench/results"
echo "{\"rounds\": $ROUNDS, \"pending\": $PENDING, \"e2e_jobs\": $E2E_JOBS, \"figures\": {$SUMMARY_JSON}}" >"$REPO/bench/results/vs-slurm.json"
