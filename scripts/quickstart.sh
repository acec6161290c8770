#!/usr/bin/env bash
# Starts (or checks, and restarts what is down of) a local Rota cluster under run/quickstart/:
# a controller, the accounting daemon (SQLite) and six node daemons on loopback, 4 GPU nodes gpu[01-04] with 8 fake A100 each
# and 2 CPU nodes cpu[01-02]. Run by `make quickstart` after `make build`; `make down` stops it.
#
#   run/quickstart/slurm.conf gres.conf cgroup.conf slurm.key   generated once, kept by make down
#   run/quickstart/munge/munge.key munge.socket   auth/munge, where munged is installed: the
#                                          cluster's own munged (a key of its own, its socket)
#   run/quickstart/auth.socket             auth/slurm, where it is not: the credential socket
#                                          on which rotad signs for ordinary users
#   run/quickstart/dev/gpuNN/nvidia[0-7]   fake GPUs: character devices, major 195, no driver
#   run/quickstart/gpus/gpuNN.inventory    their readings for GPU sampling (ROTA_FAKE_GPUS): even GPUs busy, odd idle
#   run/quickstart/pids/NAME.pid           one per daemon this script started
#   run/quickstart/log/NAME.log            each daemon's standard output and error
#   run/quickstart/env.sh                  `source` it: Rota's commands first on PATH, SLURM_CONF
#
# A daemon counts as running only if its pid file exists and /proc/PID/cmdline is that daemon
# with this cluster's slurm.conf; a stale pid file is never trusted.
#
# Several users can share the cluster: under auth/munge munged vouches for each (as on a real
# cluster), under auth/slurm the key stays root's and rotad's credential socket signs for each
# user with the uid the kernel reports (docs/security.md).
#
# Environment: ROTA_BIN (default build/bin), QS_CTLD_PORT (16817), QS_DBD_PORT (16819, rotadbd),
# QS_REST_PORT (16820, rotarestd: the REST API and the dashboard),
# QS_NODE_PORT (16901: first of six consecutive ports), MUNGED (/usr/sbin/munged). Ports and the
# authentication type are fixed when the configuration is first generated.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
QS="$REPO/run/quickstart"
BIN="${ROTA_BIN:-$REPO/build/bin}"
case "$BIN" in /*) ;; *) BIN="$REPO/$BIN" ;; esac
CONF="$QS/slurm.conf"
CTLD_PORT="${QS_CTLD_PORT:-16817}"
NODE_PORT="${QS_NODE_PORT:-16901}"
DBD_PORT="${QS_DBD_PORT:-16819}"
REST_PORT="${QS_REST_PORT:-16820}"
MUNGED="${MUNGED:-/usr/sbin/munged}"
MUNGE_DIR="$QS/munge"

GPU_NODES=(gpu01 gpu02 gpu03 gpu04)
CPU_NODES=(cpu01 cpu02)
NODES=("${GPU_NODES[@]}" "${CPU_NODES[@]}")
GPUS_PER_NODE=8
FIRST_MINOR=100 # gpu01 gets 195:100-107, gpu02 195:108-115, ...: none is a real GPU's minor

say() { printf 'quickstart: %s\n' "$*"; }
die() {
  printf 'quickstart: error: %s\n' "$*" >&2
  exit 1
}

# ---------------------------------------------------------------------------------------------
# Which processes are ours

# shellcheck source=scripts/quickstart-lib.sh
source "$REPO/scripts/quickstart-lib.sh"

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# Waits up to $2 seconds for `$1` (a command line) to succeed.
wait_for() {
  local what="$1" secs="$2" i
  for ((i = 0; i < secs * 10; i++)); do
    if eval "$what" >/dev/null 2>&1; then return 0; fi
    sleep 0.1
  done
  return 1
}

# Starts a daemon in its own session (so that an interrupted make or a closed terminal does not
# take it down), its output appended to log/NAME.log, its pid in pids/NAME.pid.
start_daemon() {
  local name="$1"
  shift
  local log="$QS/log/$name.log"
  printf '\n=== %s quickstart: %s\n' "$(date '+%F %T')" "$*" >>"$log"
  # In a script a background job is not a process group leader, so setsid does not fork: $! is
  # the daemon itself once setsid has exec'd it.
  setsid "$@" </dev/null >>"$log" 2>&1 9>&- &
  echo "$!" >"$QS/pids/$name.pid"
}

# ---------------------------------------------------------------------------------------------
# Configuration, generated once

node_port() { # index in NODES -> port
  echo $((NODE_PORT + $1))
}

generate_config() {
  local i n g minor
  for ((i = 0; i < ${#NODES[@]}; i++)); do
    if port_in_use "$(node_port "$i")"; then
      die "port $(node_port "$i") (for ${NODES[$i]}) on 127.0.0.1 is in use by another program; pick another range with QS_NODE_PORT=NNNNN make quickstart"
    fi
  done
  port_in_use "$CTLD_PORT" &&
    die "port $CTLD_PORT (for rotactld) on 127.0.0.1 is in use by another program; pick another with QS_CTLD_PORT=NNNNN make quickstart"
  port_in_use "$DBD_PORT" &&
    die "port $DBD_PORT (for rotadbd) on 127.0.0.1 is in use by another program; pick another with QS_DBD_PORT=NNNNN make quickstart"

  mkdir -p "$QS/dev" "$QS/state" "$QS/spool" "$QS/work"
  chmod 0755 "$QS" "$QS/dev" "$QS/spool"
  chmod 1777 "$QS/work" # any user may submit from here and find their output

  local gres="" nodes="" slurm_user="root"
  for ((i = 0; i < ${#GPU_NODES[@]}; i++)); do
    n="${GPU_NODES[$i]}"
    nodes+="NodeName=$n Port=$(node_port "$i") Sockets=2 CoresPerSocket=16 ThreadsPerCore=1 RealMemory=262144 Gres=gpu:a100:$GPUS_PER_NODE Feature=gpu,a100"$'\n'
    if [ "$AS_ROOT" = yes ]; then
      mkdir -p "$QS/dev/$n"
      for ((g = 0; g < GPUS_PER_NODE; g++)); do
        minor=$((FIRST_MINOR + i * GPUS_PER_NODE + g))
        rm -f "$QS/dev/$n/nvidia$g"
        mknod -m 0666 "$QS/dev/$n/nvidia$g" c 195 "$minor" ||
          die "mknod $QS/dev/$n/nvidia$g failed (is $QS on a filesystem mounted nodev?)"
      done
      # What rotad's GPU sampling reads (docs/gpu-efficiency.md): the even GPUs
      # busy, the odd ones nearly idle, so seff and sacct have something to show.
      mkdir -p "$QS/gpus"
      : >"$QS/gpus/$n.inventory"
      for ((g = 0; g < GPUS_PER_NODE; g++)); do
        if ((g % 2 == 0)); then
          echo "0 Util=92 MemUsed=61G MemTotal=80G Power=380 Temp=66" >"$QS/gpus/$n-$g.metrics"
        else
          echo "0 Util=3 MemUsed=2G MemTotal=80G Power=70 Temp=38" >"$QS/gpus/$n-$g.metrics"
        fi
        echo "Type=a100 File=$QS/dev/$n/nvidia$g Metrics=$QS/gpus/$n-$g.metrics" >>"$QS/gpus/$n.inventory"
      done
      # GPUs 0-3 hang off socket 0 (cores 0-15), 4-7 off socket 1 (cores 16-31).
      gres+="NodeName=$n Name=gpu Type=a100 File=$QS/dev/$n/nvidia[0-3] Cores=0-15"$'\n'
      gres+="NodeName=$n Name=gpu Type=a100 File=$QS/dev/$n/nvidia[4-7] Cores=16-31"$'\n'
    else
      # No mknod without root: count-only GPUs, nothing to fence off.
      gres+="NodeName=$n Name=gpu Type=a100 Count=4 Cores=0-15"$'\n'
      gres+="NodeName=$n Name=gpu Type=a100 Count=4 Cores=16-31"$'\n'
    fi
  done
  for ((i = 0; i < ${#CPU_NODES[@]}; i++)); do
    n="${CPU_NODES[$i]}"
    nodes+="NodeName=$n Port=$(node_port $((i + ${#GPU_NODES[@]}))) Sockets=2 CoresPerSocket=16 ThreadsPerCore=1 RealMemory=131072 Feature=cpu"$'\n'
  done
  # Without root the daemons run as this user, and rotad obeys only root and SlurmUser.
  [ "$AS_ROOT" = yes ] || slurm_user="$(id -un)"

  # Credentials: munge where it is installed (this cluster's own munged, with its own key and
  # socket, so a system munged is left alone); else the shared key, which only root (the
  # daemons) reads, and the credential socket that rotad serves for everyone else.
  local auth_lines
  if [ -x "$MUNGED" ]; then
    mkdir -p "$MUNGE_DIR"
    chmod 0755 "$MUNGE_DIR"
    (umask 077 && head -c 1024 /dev/urandom >"$MUNGE_DIR/munge.key")
    chmod 0400 "$MUNGE_DIR/munge.key"
    auth_lines="AuthType=auth/munge"$'\n'"AuthInfo=socket=$MUNGE_DIR/munge.socket"
  else
    auth_lines="AuthType=auth/slurm"$'\n'"AuthInfo=socket=$QS/auth.socket"
  fi

  cat >"$CONF" <<EOF
# Generated by scripts/quickstart.sh on $(date '+%F %T'). Kept by 'make down';
# 'make down CLEAN=1' deletes it and the next 'make quickstart' writes a new one.
ClusterName=quickstart
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$NODE_PORT
SlurmUser=$slurm_user
$auth_lines
StateSaveLocation=$QS/state
SlurmdSpoolDir=$QS/spool/%n
# Six node daemons on one small host: each declares the hardware of its NodeName line.
SlurmdParameters=config_overrides
ProctrackType=proctrack/cgroup
TaskPlugin=task/cgroup
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SchedulerType=sched/backfill
# Short intervals: on an idle cluster a job starts within a second or two of sbatch.
SchedulerParameters=bf_interval=1
GresTypes=gpu
DefMemPerCPU=4096
KillWait=5
# A node daemon silent for 30 s is lost; one that registers again returns to service.
SlurmdTimeout=30
ReturnToService=2
MinJobAge=3600
PreemptType=preempt/partition_prio
PreemptMode=REQUEUE
# Accounting: rotadbd keeps every job attempt in SQLite under StateSaveLocation (sacct reads it).
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
AccountingStoragePort=$DBD_PORT
AccountingStorageTRES=gres/gpu
JobAcctGatherFrequency=task=5
# Tokens (scontrol token) for rotarestd's REST API and dashboard.
AuthAltTypes=auth/jwt
AuthAltParameters=jwt_key=$QS/jwt_hs256.key

NodeName=DEFAULT NodeAddr=127.0.0.1 State=UNKNOWN
$nodes
PartitionName=DEFAULT MaxTime=1-00:00:00 DefaultTime=01:00:00 State=UP
PartitionName=gpu Nodes=gpu[01-04] Default=YES PriorityTier=10
PartitionName=preempt Nodes=gpu[01-04] PriorityTier=1 PreemptMode=REQUEUE
PartitionName=cpu Nodes=cpu[01-02] PriorityTier=10
EOF
  printf '# Generated by scripts/quickstart.sh: fake A100s (major 195, no driver behind them).\n%s' \
    "$gres" >"$QS/gres.conf"
  cat >"$QS/cgroup.conf" <<'EOF'
# Generated by scripts/quickstart.sh. Cores are not constrained: the nodes declare 32 cores
# each and this host has far fewer. Memory and devices are: a job sees only its own GPUs.
CgroupPlugin=autodetect
ConstrainCores=no
ConstrainRAMSpace=yes
ConstrainDevices=yes
EOF
  # auth/jwt: the key tokens are signed with, readable by its owner only.
  (umask 077 && head -c 64 /dev/urandom >"$QS/jwt_hs256.key")
  chmod 0600 "$QS/jwt_hs256.key"
  echo "$REST_PORT" >"$QS/rest_port"
  # auth/slurm (should AuthType change): a shared key beside slurm.conf, readable by its owner only.
  (umask 077 && head -c 64 /dev/urandom >"$QS/slurm.key")
  chmod 0600 "$QS/slurm.key"
  printf '%s\n' "${NODES[@]}" >"$QS/nodes"

  local check
  if ! check="$("$BIN/rotactld" -f "$CONF" --check-config 2>&1)"; then
    printf '%s\n' "$check" >&2
    die "the generated configuration does not pass rotactld --check-config (above)"
  fi
}

write_env() {
  cat >"$QS/env.sh" <<EOF
# Generated by scripts/quickstart.sh. Source it (bash, zsh, sh): Rota's commands come first on
# PATH and talk to the quickstart cluster.
export SLURM_CONF='$CONF'
PATH="\$(printf '%s' ":\$PATH:" | sed 's#:$BIN:#:#g; s#^:##; s#:\$##')"
export PATH='$BIN':"\$PATH"
# rotarestd: slurmrestd's REST API, /metrics and the dashboard (docs/rest.md).
export ROTA_REST_URL='http://127.0.0.1:$REST_PORT'
EOF
}

# ---------------------------------------------------------------------------------------------

AS_ROOT=yes
if [ "$(id -u)" -ne 0 ]; then
  AS_ROOT=no
  cat >&2 <<'EOF'
quickstart: ************************************************************************************
quickstart: WARNING: not running as root. Nothing is enforced: the node daemons cannot create
quickstart: cgroups, so jobs run without memory or device limits and a process that leaves its
quickstart: job is not killed; there are no fake GPU device files (mknod needs root) and every
quickstart: job runs as you. Run 'sudo make quickstart' for the real cage.
quickstart: ************************************************************************************
EOF
fi

for b in rotactld rotadbd rotad rota-stepd sbatch squeue sinfo; do
  [ -x "$BIN/$b" ] || die "$BIN/$b is missing: run 'make build' first (or 'make quickstart')"
done
for tool in setsid flock; do
  command -v "$tool" >/dev/null || die "$tool (util-linux) is needed"
done

mkdir -p "$QS/pids" "$QS/log"
# One quickstart or down at a time: two would start a daemon twice and lose one's pid.
exec 9>"$QS/.lock"
flock -w 60 9 || die "another 'make quickstart' or 'make down' holds $QS/.lock"
if [ ! -f "$CONF" ]; then
  say "writing a new configuration in $QS"
  generate_config
fi
# The REST port chosen when the configuration was written (older ones: the default).
[ -f "$QS/rest_port" ] && REST_PORT="$(tr -dc '0-9' <"$QS/rest_port")"
write_env
mapfile -t NODES <"$QS/nodes"
CTLD_PORT="$(sed -n 's/^SlurmctldPort=//p' "$CONF")"
# Configurations written before accounting existed run without rotadbd.
DAEMONS=(rotactld "${NODES[@]}")
if grep -q '^AccountingStorageType=accounting_storage/slurmdbd' "$CONF"; then
  DBD_PORT="$(sed -n 's/^AccountingStoragePort=//p' "$CONF")"
  DAEMONS=(rotadbd "${DAEMONS[@]}")
fi
# auth/munge: the cluster's munged comes first, every daemon and command needs it.
USE_MUNGE=no
if grep -q '^AuthType=auth/munge' "$CONF"; then
  USE_MUNGE=yes
  [ -x "$MUNGED" ] || die "this cluster uses auth/munge but $MUNGED is missing: install munge (scripts/install-deps.sh), or 'make down CLEAN=1' for a new configuration"
  DAEMONS=(munged "${DAEMONS[@]}")
fi

# What is running already?
declare -A PORT_OF
while read -r n p; do PORT_OF[$n]="$p"; done < <(sed -n 's/^NodeName=\([^ ]*\) Port=\([0-9]*\).*/\1 \2/p' "$CONF")
PORT_OF[rotadbd]="$DBD_PORT"
already=()
missing=()
for d in "${DAEMONS[@]}"; do
  if pid="$(running_pid "$d")"; then already+=("$d($pid)"); else missing+=("$d"); fi
done

if [ ${#missing[@]} -eq 0 ]; then
  say "the cluster is already running: ${already[*]}"
else
  [ ${#already[@]} -gt 0 ] && say "running: ${already[*]}"
  say "starting: ${missing[*]}"
  # A port held by someone else would make a daemon fail after we report success.
  for d in "${missing[@]}"; do
    [ "$d" = munged ] && continue
    port="${PORT_OF[$d]:-$CTLD_PORT}"
    if port_in_use "$port"; then
      die "port $port (for $d) on 127.0.0.1 is in use, but not by a daemon this quickstart started (see $QS/pids/); stop that program, or 'make down CLEAN=1' and pick other ports with QS_CTLD_PORT/QS_NODE_PORT"
    fi
  done
fi

# munged before anything that signs or checks a credential.
for d in "${missing[@]}"; do
  [ "$d" = munged ] || continue
  rm -f "$QS/pids/munged.pid" "$MUNGE_DIR/munge.socket" "$MUNGE_DIR/munge.socket.lock"
  start_daemon munged "$MUNGED" --foreground --force --socket="$MUNGE_DIR/munge.socket" \
    --key-file="$MUNGE_DIR/munge.key" --pid-file="$MUNGE_DIR/munged.pid" \
    --log-file="$QS/log/munged.log" --seed-file="$MUNGE_DIR/munged.seed"
  if ! wait_for "running_pid munged && [ -S '$MUNGE_DIR/munge.socket' ]" 15; then
    tail -n 20 "$QS/log/munged.log" >&2 || true
    die "munged did not come up within 15 s; its log is $QS/log/munged.log (last lines above)"
  fi
  # Users reach the socket (munged makes it 0777) through these directories.
  chmod 0755 "$MUNGE_DIR"
  say "munged pid $(running_pid munged) on $MUNGE_DIR/munge.socket"
done

# The accounting daemon first: the controller's outbox delivers to it from the start.
for d in "${missing[@]}"; do
  [ "$d" = rotadbd ] || continue
  rm -f "$QS/pids/rotadbd.pid"
  start_daemon rotadbd "$BIN/rotadbd" -f "$CONF"
  if ! wait_for "running_pid rotadbd && port_in_use $DBD_PORT" 15; then
    tail -n 20 "$QS/log/rotadbd.log" >&2 || true
    die "rotadbd did not come up within 15 s; its log is $QS/log/rotadbd.log (last lines above)"
  fi
  say "rotadbd pid $(running_pid rotadbd) listening on 127.0.0.1:$DBD_PORT"
done

for d in "${missing[@]}"; do
  [ "$d" = rotactld ] || continue
  rm -f "$QS/pids/rotactld.pid"
  start_daemon rotactld "$BIN/rotactld" -f "$CONF"
  # shellcheck disable=SC2016 # evaluated later by wait_for
  if ! wait_for 'running_pid rotactld && SLURM_CONF="$CONF" "$BIN/sinfo" -h' 15; then
    tail -n 20 "$QS/log/rotactld.log" >&2 || true
    die "rotactld did not come up within 15 s; its log is $QS/log/rotactld.log (last lines above)"
  fi
  say "rotactld pid $(running_pid rotactld) listening on 127.0.0.1:$CTLD_PORT"
done

started_nodes=()
for d in "${missing[@]}"; do
  [ "$d" = rotactld ] || [ "$d" = rotadbd ] || [ "$d" = munged ] && continue
  rm -f "$QS/pids/$d.pid"
  if [ -f "$QS/gpus/$d.inventory" ]; then # scripted GPU readings (generate_config)
    start_daemon "$d" env ROTA_FAKE_GPUS="$QS/gpus/$d.inventory" "$BIN/rotad" -N "$d" -f "$CONF"
  else
    start_daemon "$d" "$BIN/rotad" -N "$d" -f "$CONF"
  fi
  started_nodes+=("$d")
done
for d in "${started_nodes[@]}"; do
  if ! wait_for "running_pid $d && port_in_use ${PORT_OF[$d]}" 15; then
    tail -n 20 "$QS/log/$d.log" >&2 || true
    die "rotad for $d did not come up within 15 s; its log is $QS/log/$d.log (last lines above)"
  fi
done
[ ${#started_nodes[@]} -gt 0 ] && say "rotad started for ${started_nodes[*]}"

# Every node registered (no '*': the controller hears from its daemon)?
export SLURM_CONF="$CONF"
nodes_up() { ! "$BIN/sinfo" -h -N -o '%N %t' | grep -q '\*'; }
register_wait=15
if [[ " ${missing[*]} " == *" rotactld "* ]] && [ ${#already[@]} -gt 0 ]; then
  # Node daemons that were already registered notice a new controller at their next
  # heartbeat (at most 30 s, or a third of SlurmdTimeout where rotad supports it).
  register_wait=40
  nodes_up || say "waiting for the running node daemons to register with the new controller (up to $register_wait s)"
fi
if ! wait_for nodes_up "$register_wait"; then
  "$BIN/sinfo" -N >&2 || true
  die "not every node registered with the controller within $register_wait s (see $QS/log/)"
fi

# rotarestd: the REST API and the dashboard. It acts for whoever's token a request
# carries; like slurmrestd it refuses to run as root unless told it may.
if running_pid rotarestd >/dev/null; then
  say "rotarestd pid $(running_pid rotarestd) already serving http://127.0.0.1:$REST_PORT/"
else
  port_in_use "$REST_PORT" &&
    die "port $REST_PORT (for rotarestd) on 127.0.0.1 is in use by another program; pick another with QS_REST_PORT=NNNNN make quickstart (after make down CLEAN=1)"
  rm -f "$QS/pids/rotarestd.pid" "$QS/rest.socket"
  start_daemon rotarestd env SLURMRESTD_SECURITY=disable_user_check "$BIN/rotarestd" -f "$CONF" \
    "127.0.0.1:$REST_PORT" "unix:$QS/rest.socket"
  if ! wait_for "running_pid rotarestd && port_in_use $REST_PORT" 15; then
    tail -n 20 "$QS/log/rotarestd.log" >&2 || true
    die "rotarestd did not come up within 15 s; its log is $QS/log/rotarestd.log (last lines above)"
  fi
  say "rotarestd pid $(running_pid rotarestd) serving http://127.0.0.1:$REST_PORT/"
fi

# A demo job when the whole cluster was started from nothing.
demo=""
if [ ${#already[@]} -eq 0 ]; then
  # shellcheck disable=SC2016 # expanded in the job
  demo="$(cd "$QS/work" && "$BIN/sbatch" --parsable -J demo --gres=gpu:2 \
    --wrap='nvidia-smi -L 2>/dev/null || echo "GPUs: $CUDA_VISIBLE_DEVICES (job $SLURM_JOB_ID on $SLURMD_NODENAME)"')" ||
    die "the demo job was refused: $demo"
  demo="${demo%%;*}"
  say "submitted demo job $demo: sbatch --gres=gpu:2 --wrap='nvidia-smi -L || echo \"GPUs: \$CUDA_VISIBLE_DEVICES ...\"'"
  demo_done() { [ "$("$BIN/squeue" -h -t all -j "$demo" -o %T)" = COMPLETED ] && [ -s "$QS/work/slurm-$demo.out" ]; }
  if wait_for demo_done 10; then
    say "demo job $demo completed; run/quickstart/work/slurm-$demo.out says:"
    sed 's/^/    /' "$QS/work/slurm-$demo.out"
  else
    say "demo job $demo has not completed within 10 s; see squeue -j $demo and $QS/log/"
  fi
fi

echo
"$BIN/sinfo"
echo
"$BIN/squeue"
echo
if [ "$USE_MUNGE" = yes ]; then
  say "credentials: auth/munge, this cluster's munged on $MUNGE_DIR/munge.socket"
else
  # A slurm.conf kept from before the credential socket names none: rotad's default.
  socket="$(sed -n 's/^AuthInfo=socket=//p' "$CONF")"
  say "credentials: auth/slurm; other users get theirs from rotad on ${socket:-/run/rota/auth.socket}"
fi
cat <<EOF
quickstart: dashboard: http://127.0.0.1:$REST_PORT/ (sign in as $(id -un) with the token 'scontrol token' prints)
quickstart: logs in $QS/log/, pids in $QS/pids/
quickstart: next:
  source run/quickstart/env.sh        # Rota's sbatch, squeue, ... first on PATH; SLURM_CONF set
  sinfo; squeue -t all
EOF
[ -n "$demo" ] && echo "  cat run/quickstart/work/slurm-$demo.out"
[ "$AS_ROOT" = yes ] &&
  echo "  cd $QS/work && runuser -u USER -- env SLURM_CONF=$CONF $BIN/sbatch --wrap=id   # as another user"
cat <<'EOF'
  sbatch --gres=gpu:1 --wrap='env | grep -E "CUDA|SLURM_JOB"'   # output: slurm-<id>.out here
  sbatch -p cpu -n 4 --wrap='hostname; sleep 30'
  sacct -a                             # what ran, from rotadbd
  curl -s -H "X-SLURM-USER-NAME: $USER" -H "X-SLURM-USER-TOKEN: $(scontrol token | cut -d= -f2)" \
    "$ROTA_REST_URL/slurm/v0.0.38/jobs"   # the REST API (docs/rest.md)
  seff <id>                            # how well a job used its CPUs, memory and GPUs
  sstat -j <id>.batch -o JobID,AveCPU,MaxRSS,TRESUsageInAve   # a running job's figures so far
  scontrol show node gpu01
  make down                            # stop it (make down CLEAN=1 also deletes run/quickstart)
EOF
