#!/usr/bin/env bash
# End-to-end job throughput and launch latency on the local quickstart cluster:
# 1,000 trivial jobs (an array, so submission costs nothing) from submission to
# the last COMPLETED, with and without a GPU each, including the cgroup set-up
# and tear-down on the node daemons; and submit -> COMPLETED of one job on an
# idle cluster. Needs `make quickstart` first (root, for the cage).
#
#   bash bench/e2e_bench.sh [JOBS]
#
# stdout: `name value unit` lines.
set -euo pipefail
export LC_ALL=C
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ENV_SH="$REPO/run/quickstart/env.sh"
[ -f "$ENV_SH" ] || { echo "e2e_bench: run 'make quickstart' first" >&2; exit 1; }
# shellcheck source=/dev/null
source "$ENV_SH"
JOBS="${1:-1000}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"  # Job output files land here, and go with it.

drained() { [ "$(squeue -h -t PD,R,CG | wc -l)" = 0 ]; }
until drained; do sleep 0.2; done

run_array() {  # $1: extra sbatch options; prints jobs/s
  local t0 t1 id
  t0=$EPOCHREALTIME
  id=$(sbatch --parsable --array=1-"$JOBS" -o /dev/null $1 --wrap=true)
  until drained; do sleep 0.05; done
  t1=$EPOCHREALTIME
  local done_count
  done_count=$(squeue -h -t CD -j "$id" -r | wc -l)
  [ "$done_count" = "$JOBS" ] || echo "e2e_bench: only $done_count of $JOBS jobs COMPLETED" >&2
  awk -v n="$JOBS" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", n / (b - a) }'
}

echo "e2e_jobs_per_s_cpu $(run_array '-p cpu') jobs/s"
echo "e2e_jobs_per_s_1gpu $(run_array '-p gpu --gres=gpu:1') jobs/s"

latencies=()
for _ in 1 2 3 4 5; do
  t0=$EPOCHREALTIME
  id=$(sbatch --parsable -p cpu -o /dev/null --wrap=true)
  until [ "$(squeue -h -t all -j "$id" -o %T)" = COMPLETED ]; do sleep 0.002; done
  t1=$EPOCHREALTIME
  latencies+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", (b - a) * 1000 }')")
done
median=$(printf '%s\n' "${latencies[@]}" | sort -n | sed -n 3p)
echo "e2e_submit_to_completed_ms $median ms"
