#!/usr/bin/env bash
# A/B of two builds of Rota end to end: two Rota clusters of the side-by-side
# harness (vs-slurm/cluster.sh), one per build, up at once, runs alternated.
# Prints one line per round: 1,000 trivial jobs/s on each. Needs root. Usage:
#   bench/e2e_ab.sh BIN_A BIN_B ROUNDS [sbatch options, default --gpus=1]
set -euo pipefail
export LC_ALL=C
H="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/vs-slurm"
A="$(cd "$1" && pwd)"; B="$(cd "$2" && pwd)"; ROUNDS="$3"; shift 3
OPTS="${*:---gpus=1}"
WORK="$(mktemp -d /var/tmp/rota-ab.XXXXXX)"; chmod 0755 "$WORK"
cleanup() { bash $H/cluster.sh down "$WORK/a" 2>/dev/null || true; bash $H/cluster.sh down "$WORK/b" 2>/dev/null || true; bash $H/cluster.sh down "$WORK" 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
port() { local p; while true; do p=$((10000 + RANDOM % 22000)); local busy=0 i; for i in 0 1 2 3 4; do (exec 3<>"/dev/tcp/127.0.0.1/$((p + i))") 2>/dev/null && busy=1; done; [ $busy = 0 ] && { echo $p; return; }; done; }
bash $H/cluster.sh munge "$WORK"
mkdir -p "$WORK/a" "$WORK/b"
bash $H/cluster.sh up rota "$WORK/a" "$(port)" "$A" "$WORK/munge/sock"
bash $H/cluster.sh up rota "$WORK/b" "$(port)" "$B" "$WORK/munge/sock"
cd "$WORK"
run() {  # $1 a|b, $2 bin
  export SLURM_CONF="$WORK/$1/slurm.conf"
  local t0 t1
  t0=$EPOCHREALTIME
  "$2/sbatch" --array=1-1000 -o /dev/null $OPTS --wrap true >/dev/null
  while [ "$("$2/squeue" -h -t PD,R,CG,S -o %i -r 2>/dev/null | wc -l)" != 0 ]; do sleep 0.05; done
  t1=$EPOCHREALTIME
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", 1000 / (b - a) }'
}
run a "$A" >/dev/null; run b "$B" >/dev/null  # warm up
for ((i = 0; i < ROUNDS; i++)); do
  if ((i % 2)); then b=$(run b "$B"); a=$(run a "$A"); else a=$(run a "$A"); b=$(run b "$B"); fi
  echo "round $i A $a B $b"
done
