#!/usr/bin/env bash
# One small cluster for the side-by-side benchmark, real Slurm or Rota, from the same slurm.conf
# text: a controller and four node daemons n1-n4 on loopback (32 cores, 512 GB and 8 fake A100
# each, as the cluster Slurm's reference figures came from), munge authentication through one
# munged shared by both, cgroup v1 cages with ConstrainDevices. No accounting daemon on either side.
#
#   cluster.sh munge DIR                  starts munged: socket DIR/munge/sock (pid in DIR/pids)
#   cluster.sh up    KIND DIR PORT BIN SOCK  KIND: slurm|rota; PORT: controller port, nodes
#                                         PORT+1..+4; BIN: the daemons (slurm: /usr/sbin)
#   cluster.sh down  DIR                  stops what `up` or `munge` started there, by pid
#
# The commands to drive it: SLURM_CONF=DIR/slurm.conf with the kind's sbatch/squeue/srun.
set -euo pipefail

die() { echo "vs-slurm: $*" >&2; exit 1; }

# Starts "$@" in its own session, output to DIR/log/NAME.log, pid in DIR/pids/NAME.
spawn() {
  local dir="$1" name="$2"; shift 2
  setsid "$@" >>"$dir/log/$name.log" 2>&1 </dev/null &
  echo $! >"$dir/pids/$name"
}

wait_for() {  # $1 seconds, then a command that must succeed
  local secs="$1" i; shift
  for ((i = 0; i < secs * 20; i++)); do "$@" >/dev/null 2>&1 && return 0; sleep 0.05; done
  return 1
}

start_munged() {
  local dir="$1"
  mkdir -p "$dir/munge" "$dir/log" "$dir/pids" && chmod 0700 "$dir/munge"
  (umask 077 && head -c 1024 /dev/urandom >"$dir/munge/key")
  spawn "$dir" munged munged --foreground --force --socket="$dir/munge/sock" \
    --key-file="$dir/munge/key" --pid-file="$dir/munge/pid" --log-file="$dir/munge/log" \
    --seed-file="$dir/munge/seed" --num-threads=4
  wait_for 10 test -S "$dir/munge/sock" || die "munged did not start (see $dir/log/munged.log)"
}

write_conf() {  # DIR KIND PORT MUNGE_SOCKET
  local dir="$1" kind="$2" port="$3" sock="$4" host plugin_dir=""
  host="$(hostname -s)"
  [ "$kind" = slurm ] && plugin_dir="PluginDir=/usr/lib/x86_64-linux-gnu/slurm-wlm"
  mkdir -p "$dir/state" "$dir/spool" "$dir/dev" "$dir/log" "$dir/pids" "$dir/run"
  mkdir -p "$dir"/spool/n{1,2,3,4}
  local g
  for ((g = 0; g < 8; g++)); do
    [ -c "$dir/dev/nvidia$g" ] || mknod -m 0666 "$dir/dev/nvidia$g" c 195 $((200 + g))
  done
  cat >"$dir/slurm.conf" <<CONF
ClusterName=vs$kind
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock
$plugin_dir
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd-%n.pid
SlurmctldLogFile=$dir/log/slurmctld-file.log
SlurmdLogFile=$dir/log/slurmd-%n-file.log
SlurmctldDebug=info
SlurmdDebug=info
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
ProctrackType=proctrack/cgroup
TaskPlugin=task/cgroup
SlurmdParameters=config_overrides
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=1024
GresTypes=gpu
PriorityType=priority/multifactor
PriorityWeightAge=1000
PriorityWeightJobSize=1000
PriorityWeightPartition=1000
PriorityMaxAge=7-0
MaxJobCount=200000
MaxArraySize=100001
MinJobAge=300
InactiveLimit=0
KillWait=30
Waittime=0
SlurmctldTimeout=120
SlurmdTimeout=300
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
CONF
  local i
  for i in 1 2 3 4; do
    echo "NodeName=n$i NodeHostname=$host NodeAddr=127.0.0.1 Port=$((port + i)) CPUs=32 Boards=1 SocketsPerBoard=2 CoresPerSocket=16 ThreadsPerCore=1 RealMemory=512000 Gres=gpu:a100:8 State=UNKNOWN" >>"$dir/slurm.conf"
  done
  cat >>"$dir/slurm.conf" <<CONF
PartitionName=batch Nodes=ALL Default=YES MaxTime=1-00:00:00 DefaultTime=01:00:00 State=UP PriorityJobFactor=1
PartitionName=short Nodes=ALL Default=NO MaxTime=00:30:00 DefaultTime=00:10:00 State=UP PriorityJobFactor=100
CONF
  printf 'AutoDetect=off\nNodeName=n[1-4] Name=gpu Type=a100 File=%s/dev/nvidia[0-7]\n' "$dir" >"$dir/gres.conf"
  cat >"$dir/cgroup.conf" <<CONF
CgroupPlugin=cgroup/v1
CgroupMountpoint=/sys/fs/cgroup
ConstrainDevices=yes
ConstrainCores=no
ConstrainRAMSpace=yes
ConstrainSwapSpace=no
CONF
}

nodes_idle() {  # KIND DIR BIN_CMDS
  local out
  out="$(SLURM_CONF="$2/slurm.conf" "$3/sinfo" -h -N -p batch -o '%N %t' 2>/dev/null)" || return 1
  [ "$(grep -c ' idle' <<<"$out")" = 4 ]
}

up() {
  local kind="$1" dir="$2" port="$3" bin="$4" sock="$5" cmds
  write_conf "$dir" "$kind" "$port" "$sock"
  local i
  if [ "$kind" = slurm ]; then
    cmds=/usr/bin
    spawn "$dir" ctld env SLURM_CONF="$dir/slurm.conf" "$bin/slurmctld" -D -i -f "$dir/slurm.conf"
    for i in 1 2 3 4; do
      spawn "$dir" "n$i" env SLURM_CONF="$dir/slurm.conf" "$bin/slurmd" -D -N "n$i" -f "$dir/slurm.conf"
    done
  else
    cmds="$bin"
    spawn "$dir" ctld "$bin/rotactld" -f "$dir/slurm.conf"
    for i in 1 2 3 4; do
      spawn "$dir" "n$i" "$bin/rotad" -N "n$i" -f "$dir/slurm.conf"
    done
  fi
  wait_for 60 nodes_idle "$kind" "$dir" "$cmds" || {
    tail -n 5 "$dir"/log/*.log >&2
    die "$kind: the four nodes did not become idle within 60 s (logs above)"
  }
}

down() {
  local dir="$1" f pid
  for f in "$dir"/pids/n* "$dir"/pids/ctld "$dir"/pids/munged; do
    [ -f "$f" ] || continue
    pid="$(cat "$f")"
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$f"
  done
  # slurmd leaves its per-node cgroups (slurm_nX under each v1 controller) behind; they are
  # empty once its jobs are gone. Deepest first, as rmdir needs.
  if grep -qs '^ClusterName=vsslurm' "$dir/slurm.conf"; then
    find /sys/fs/cgroup/*/slurm_n[1-4] -depth -type d -exec rmdir {} + 2>/dev/null || true
  fi
  # rotad keeps its node's level (rota/nX) for the next start; this cluster is gone for good.
  if grep -qs '^ClusterName=vsrota' "$dir/slurm.conf"; then
    find /sys/fs/cgroup/*/rota/n[1-4] /sys/fs/cgroup/unified/rota/n[1-4] -depth -type d \
      -exec rmdir {} + 2>/dev/null || true
  fi
}

case "${1:-}" in
  munge) shift; start_munged "$@" ;;
  up) shift; up "$@" ;;
  down) shift; down "$@" ;;
  *) die "usage: cluster.sh munge DIR | up slurm|rota DIR PORT BIN SOCK | down DIR" ;;
esac
