#!/usr/bin/env bash
# Installs every Debian package that building and testing Rota needs.
# Idempotent and quiet when everything is already present; refreshes the package
# lists only when something is missing (a fresh machine has stale lists).
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config
  # LLVM's linker: links the suite's ~140 programs about three times faster than ld.bfd.
  lld
  clang clang-format
  libgtest-dev libgmock-dev libbenchmark-dev
  libfmt-dev libspdlog-dev nlohmann-json3-dev
  libprotobuf-dev protobuf-compiler libasio-dev
  libssl-dev libmunge-dev munge zlib1g-dev
  libhwloc-dev libpmix-dev
  libsqlite3-dev libmicrohttpd-dev libjwt-dev
  # The daemons tell systemd when they are ready (Type=notify units).
  libsystemd-dev
  iproute2
  libpq-dev postgresql
  libfaketime
  # Containers (src/noded/container/README.md): the runtime, squashfs images,
  # image layers, and the busybox the tests build their images from.
  crun squashfs-tools busybox-static libarchive-dev
)
# The test suite also runs real workflow clients and Open MPI against Rota
# (docs/clients.md, docs/mpi.md): `make test` asks for them with
# --with-clients; `make quickstart` does not.
if [ "${1:-}" = "--with-clients" ]; then
  packages+=(snakemake python3-ipyparallel toil python3-distributed openmpi-bin libopenmpi-dev)
  # MPICH beside it, for srun --mpi=pmi2's PMI-1 clients; Open MPI stays the
  # default mpicc/mpirun (its alternatives rank higher), MPICH is mpicxx.mpich.
  packages+=(mpich libmpich-dev)
  # The packages' test checks the service units with systemd-analyze.
  packages+=(systemd)
  # The configless test serves the controller's DNS SRV record with dnsmasq.
  packages+=(dnsmasq-base)
  # The dashboard's browser test: Debian's Chromium, driven from Node.js
  # (tests/dashboard). A Node.js already installed from elsewhere brings npm.
  packages+=(chromium)
  command -v npm >/dev/null 2>&1 || packages+=(nodejs npm)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The browser automation library of the dashboard test, from the npm registry,
# at the versions package-lock.json pins.
if [ "${1:-}" = "--with-clients" ]; then
  dashboard_tests="$(cd "$(dirname "$0")/.." && pwd)/tests/dashboard"
  if [ ! -d "$dashboard_tests/node_modules/puppeteer-core" ] ||
     [ "$dashboard_tests/package-lock.json" -nt "$dashboard_tests/node_modules/.package-lock.json" ]; then
    echo "install-deps: npm ci in tests/dashboard"
    (cd "$dashboard_tests" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  fi
fi
