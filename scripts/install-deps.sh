#!/usr/bin/env bash
# Installs every Debian package that building and testing Rota needs.
# Idempotent and quiet when everything is already present; refreshes the package
# lists only when something is missing (a fresh machine has stale lists).
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config
  clang clang-format
  libgtest-dev libgmock-dev libbenchmark-dev
  libfmt-dev libspdlog-dev nlohmann-json3-dev
  libprotobuf-dev protobuf-compiler libasio-dev
  libssl-dev libmunge-dev munge zlib1g-dev
  libhwloc-dev libpmix-dev
  libsqlite3-dev libmicrohttpd-dev libjwt-dev
  libpq-dev postgresql
  libfaketime
)
# The test suite also runs real workflow clients and Open MPI against Rota
# (docs/clients.md, docs/mpi.md): `make test` asks for them with
# --with-clients; `make quickstart` does not.
if [ "${1:-}" = "--with-clients" ]; then
  packages+=(snakemake python3-ipyparallel toil openmpi-bin libopenmpi-dev)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: installing ${missing[*]}"
sudo_cmd=()
[ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
