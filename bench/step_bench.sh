#!/usr/bin/env bash
# Step launch latency: the wall time of `srun true` with 1, 8 and 64 tasks
# inside one sbatch allocation of two 32-CPU nodes of the local quickstart
# cluster (step created by the controller, tasks started in the job's cage on
# both node daemons, output streams opened and closed, exits collected). Needs
# `make quickstart` first (root, for the cage).
#
#   bash bench/step_bench.sh [REPEATS]
#
# stdout: `name value unit` lines (median of REPEATS runs, default 11).
set -euo pipefail
export LC_ALL=C
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ENV_SH="${ROTA_QS_ENV:-$REPO/run/quickstart/env.sh}"
[ -f "$ENV_SH" ] || { echo "step_bench: run 'make quickstart' first" >&2; exit 1; }
# shellcheck source=/dev/null
source "$ENV_SH"
REPEATS="${1:-11}"
WORK="$(mktemp -d)"
chmod 755 "$WORK"
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"

cat >"$WORK/steps.sh" <<SCRIPT
#!/usr/bin/env bash
export PATH="$PATH" SLURM_CONF="$SLURM_CONF"
for n in 1 8 64; do
  for ((i = 0; i < $REPEATS; i++)); do
    t0=\$EPOCHREALTIME
    srun -n \$n true || echo "srun -n \$n failed" >&2
    t1=\$EPOCHREALTIME
    echo "\$n \$t0 \$t1"
  done
done
SCRIPT
chmod 755 "$WORK/steps.sh"
id=$(sbatch --parsable -p cpu -N2 -n64 -o "$WORK/out" -e "$WORK/err" "$WORK/steps.sh")
until [ "$(squeue -h -t all -j "$id" -o %T)" = COMPLETED ] ||
  [ "$(squeue -h -t all -j "$id" -o %T)" = FAILED ]; do sleep 0.2; done
[ -s "$WORK/err" ] && cat "$WORK/err" >&2
for n in 1 8 64; do
  median=$(awk -v n="$n" '$1 == n { printf "%.1f\n", ($3 - $2) * 1000 }' "$WORK/out" | sort -n |
    awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }')
  echo "step_launch_${n}_tasks_ms ${median:-nan} ms"
done
