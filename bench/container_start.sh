#!/usr/bin/env bash
# Container start overhead (docs/containers.md): the wall time of a one-task
# step `srun -n1 true` on the host, in a container whose image is cached
# (warm), and in one whose image is imported first (cold: a fresh copy of
# the image each time, so the cache misses), inside one sbatch allocation of
# the local quickstart cluster. The image is busybox-static as a squashfs
# file (2 MiB). Needs `make quickstart` first (root), crun, squashfs-tools
# and busybox-static.
#
#   bash bench/container_start.sh [REPEATS]
#
# stdout: `name value unit` lines (median of REPEATS runs, default 11).
set -euo pipefail
export LC_ALL=C
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ENV_SH="${ROTA_QS_ENV:-$REPO/run/quickstart/env.sh}"
[ -f "$ENV_SH" ] || { echo "container_start: run 'make quickstart' first" >&2; exit 1; }
# shellcheck source=/dev/null
source "$ENV_SH"
REPEATS="${1:-11}"
WORK="$(mktemp -d)"
chmod 755 "$WORK"
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"

root="$WORK/root"
mkdir -p "$root/bin" "$root/etc" "$root/proc" "$root/sys" "$root/dev"
install -m 1777 -d "$root/tmp"
cp /bin/busybox "$root/bin/"
for a in $(/bin/busybox --list); do [ -e "$root/bin/$a" ] || ln -s busybox "$root/bin/$a"; done
mksquashfs "$root" "$WORK/image.sqsh" -noappend -quiet -all-root >/dev/null
chmod 644 "$WORK/image.sqsh"

cat >"$WORK/starts.sh" <<SCRIPT
#!/usr/bin/env bash
export PATH="$PATH" SLURM_CONF="$SLURM_CONF"
run() { # label, srun arguments
  t0=\$EPOCHREALTIME
  srun -n1 "\${@:2}" true || echo "srun \${*:2} failed" >&2
  t1=\$EPOCHREALTIME
  echo "\$1 \$t0 \$t1"
}
srun -n1 --container-image=$WORK/image.sqsh true  # The cache is warm from here on
for ((i = 0; i < $REPEATS; i++)); do
  run host
  run warm --container-image=$WORK/image.sqsh
  cp $WORK/image.sqsh $WORK/cold-\$i.sqsh
  run cold --container-image=$WORK/cold-\$i.sqsh
done
SCRIPT
chmod 755 "$WORK/starts.sh"
id=$(sbatch --parsable -N1 -n1 -o "$WORK/out" -e "$WORK/err" "$WORK/starts.sh")
until [ "$(squeue -h -t all -j "$id" -o %T)" = COMPLETED ] ||
  [ "$(squeue -h -t all -j "$id" -o %T)" = FAILED ]; do sleep 0.2; done
[ -s "$WORK/err" ] && cat "$WORK/err" >&2
for label in host warm cold; do
  median=$(awk -v l="$label" '$1 == l { printf "%.1f\n", ($3 - $2) * 1000 }' "$WORK/out" | sort -n |
    awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }')
  echo "container_step_${label}_ms ${median:-nan} ms"
done
