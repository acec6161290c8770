#!/usr/bin/env bash
# Builds Rota's Debian packages from a build tree, one per component of the
# install rules (CMakeLists.txt): rota-controller, rota-node, rota-accounting,
# rota-rest and rota-client. Library dependencies come from dpkg-shlibdeps;
# each package's postinst makes what Slurm's default paths need.
#
#   scripts/make-packages.sh [--build-dir DIR] [--out DIR] [--fast]
#
# --fast: no compression (the test suite's packages of a sanitized build are
# large and only installed once).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/build"
out=""
compression=(-Zxz)
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build="$(cd "$2" && pwd)"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --fast) compression=(-Znone); shift ;;
    *) echo "make-packages: unknown argument $1" >&2; exit 2 ;;
  esac
done
out="${out:-$build/packages}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"

version="$(sed -n 's/^project(rota VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")"
arch="$(dpkg --print-architecture)"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT

# component|summary|extra dependencies|conflicts|system user|directories (path:owner:mode ...)
components=(
  "controller|controller daemon (rotactld)|adduser||slurm|/var/spool/slurmctld:slurm:0700 /var/log/slurm:slurm:0755"
  "node|node daemon (rotad) and its helpers|crun, squashfs-tools|||/var/spool/slurmd:root:0755 /var/log/slurm:slurm:0755"
  "accounting|accounting daemon (rotadbd)|adduser||slurm|/var/spool/slurmctld:slurm:0700 /var/log/slurm:slurm:0755"
  "rest|REST API and dashboard (rotarestd)|adduser||rotarest|"
  "client|commands (sbatch, srun, squeue, ...) and rota-authd||slurm-client||"
)

# The postinst of a package: its system user, its directories, systemd told.
# With DPKG_ROOT set (dpkg --root ... --force-script-chrootless), only the
# directories are made, under that root: users and systemd are the host's.
write_postinst() {
  local user="$1" dirs="$2" file="$3"
  {
    echo '#!/bin/sh'
    echo 'set -e'
    echo '[ "$1" = configure ] || exit 0'
    echo 'root="${DPKG_ROOT:-}"'
    if [ -n "$user" ]; then
      echo "if [ -z \"\$root\" ] && ! getent passwd $user >/dev/null; then"
      echo "  adduser --system --group --quiet --no-create-home --home /nonexistent $user"
      echo 'fi'
    fi
    for entry in $dirs; do
      IFS=: read -r path owner mode <<<"$entry"
      echo "install -d -m $mode \"\$root$path\""
      echo "[ -n \"\$root\" ] || ! getent passwd $owner >/dev/null || chown $owner: \"$path\""
    done
    echo 'if [ -z "$root" ] && [ -d /run/systemd/system ]; then systemctl daemon-reload || true; fi'
  } >"$file"
  chmod 0755 "$file"
}

for entry in "${components[@]}"; do
  IFS='|' read -r component summary extra conflicts user dirs <<<"$entry"
  package="rota-$component"
  dir="$stage/$package"
  # Stripped, as Debian ships programs (the build tree keeps the debug info).
  DESTDIR="$dir" cmake --install "$build" --prefix /usr --component "$component" --strip >/dev/null
  mkdir -p "$dir/DEBIAN"

  # The shared libraries its programs load, as Debian names their packages.
  depends="$extra"
  mapfile -t programs < <(find "$dir/usr" -type f -perm -u+x)
  if [ ${#programs[@]} -gt 0 ]; then
    mkdir -p "$stage/shlibs/debian"
    printf 'Source: rota\n\nPackage: %s\nArchitecture: any\n' "$package" >"$stage/shlibs/debian/control"
    shlibs="$(cd "$stage/shlibs" && dpkg-shlibdeps -O --ignore-missing-info "${programs[@]}" 2>/dev/null |
      sed -n 's/^shlibs:Depends=//p')"
    depends="${shlibs}${depends:+, $depends}"
  fi
  {
    echo "Package: $package"
    echo "Version: $version"
    echo "Architecture: $arch"
    echo "Maintainer: Rota developers <rota@localhost>"
    echo "Section: admin"
    echo "Priority: optional"
    [ -n "$depends" ] && echo "Depends: $depends"
    [ -n "$conflicts" ] && echo "Conflicts: $conflicts"
    echo "Description: Rota GPU-aware workload manager: $summary"
    echo " Rota is a Slurm-compatible workload manager for GPU clusters: it reads a"
    echo " site's slurm.conf, gres.conf and cgroup.conf and answers Slurm's commands."
  } >"$dir/DEBIAN/control"
  write_postinst "$user" "$dirs" "$dir/DEBIAN/postinst"
  dpkg-deb --root-owner-group "${compression[@]}" --build "$dir" \
    "$out/${package}_${version}_${arch}.deb" >/dev/null
  echo "$out/${package}_${version}_${arch}.deb"
done
