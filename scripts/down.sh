#!/usr/bin/env bash
# Stops the local cluster that scripts/quickstart.sh started: exactly the daemons whose pids it
# recorded in run/quickstart/pids/ (and only if /proc/PID/cmdline is still that daemon), node
# daemons first (they kill their jobs and report them), then the controller, rotadbd and the
# cluster's munged (auth/munge). SIGTERM, up to
# 10 s, then SIGKILL. Then removes what is left of the quickstart nodes' cgroups,
# /sys/fs/cgroup/*/rota/<node>/, for its own node names only.
#
# The configuration, state, logs and job output in run/quickstart/ stay, so the next
# `make quickstart` brings back the same cluster with its jobs; `--clean` (make down CLEAN=1)
# deletes run/quickstart/ as well.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
QS="$REPO/run/quickstart"
CONF="$QS/slurm.conf"
CLEAN=no
case "${1:-}" in
  --clean) CLEAN=yes ;;
  "") ;;
  *)
    echo "usage: $0 [--clean]" >&2
    exit 2
    ;;
esac

say() { printf 'down: %s\n' "$*"; }

if [ ! -d "$QS" ]; then
  say "no quickstart cluster in $QS: nothing to do"
  exit 0
fi

# One quickstart or down at a time.
exec 9>"$QS/.lock"
flock -w 60 9 || {
  say "another 'make quickstart' or 'make down' holds $QS/.lock"
  exit 1
}

# The quickstart's node names: from the file it wrote, else its fixed list.
NODES=()
[ -f "$QS/nodes" ] && mapfile -t NODES <"$QS/nodes"
[ ${#NODES[@]} -gt 0 ] || NODES=(gpu01 gpu02 gpu03 gpu04 cpu01 cpu02)

# shellcheck source=scripts/quickstart-lib.sh
source "$REPO/scripts/quickstart-lib.sh"

# Alive and not a zombie.
alive() {
  local state
  state="$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$1/status" 2>/dev/null)"
  [ -n "$state" ] && [ "$state" != Z ]
}

# Stops the named daemons: SIGTERM, up to 10 s, SIGKILL.
stop_all() {
  local names=("$@") pids=() labels=() n pid i
  for n in "${names[@]}"; do
    if pid="$(running_pid "$n")"; then
      pids+=("$pid")
      labels+=("$n($pid)")
    elif [ -f "$QS/pids/$n.pid" ]; then
      say "$n: not running (stale pid file $(tr -dc '0-9' <"$QS/pids/$n.pid") removed)"
      rm -f "$QS/pids/$n.pid"
    fi
  done
  [ ${#pids[@]} -gt 0 ] || return 0
  say "SIGTERM to ${labels[*]}"
  kill -TERM "${pids[@]}" 2>/dev/null || true
  for ((i = 0; i < 100; i++)); do
    local left=()
    for pid in "${pids[@]}"; do alive "$pid" && left+=("$pid"); done
    [ ${#left[@]} -eq 0 ] && break
    sleep 0.1
  done
  for ((i = 0; i < ${#pids[@]}; i++)); do
    if alive "${pids[$i]}"; then
      say "${labels[$i]} still running after 10 s: SIGKILL"
      kill -KILL "${pids[$i]}" 2>/dev/null || true
    fi
  done
  for n in "${names[@]}"; do rm -f "$QS/pids/$n.pid"; done
}

stop_all rotarestd
stop_all "${NODES[@]}"
stop_all rotactld
stop_all rotadbd
# auth/munge: the cluster's own munged, last (the others sign their last reports with it).
stop_all munged

# Cgroups: rota/<node>/uid_*/job_*/ with their step_*/ and step_*/task_*/ levels
# (rota/<node>/job_*/ from older versions), the uid_*
# levels and rota/<node>/ of the quickstart's nodes, in every v1
# hierarchy. A rotad stopped with SIGTERM has removed its jobs' cgroups already; a killed one
# may have left some, possibly still holding job processes, which are killed first (they belong
# to this cluster's jobs: nothing else is put in these cgroups).
left_cgroups=0
for n in "${NODES[@]}"; do
  for node_dir in /sys/fs/cgroup/*/rota/"$n"; do
    [ -d "$node_dir" ] || continue
    for job_dir in "$node_dir"/uid_*/job_* "$node_dir"/job_*; do
      [ -d "$job_dir" ] || continue
      # The job's own processes and those of its steps and tasks (step_*/, step_*/task_*/):
      # cgroup v1 lists each cgroup's members only.
      job_procs() { find "$job_dir" -name cgroup.procs -exec cat {} + 2>/dev/null || true; }
      procs="$(job_procs)"
      if [ -n "$procs" ]; then
        say "$job_dir still holds processes ${procs//$'\n'/ }: killing them"
        { [ -f "$job_dir/freezer.state" ] && echo THAWED >"$job_dir/freezer.state"; } 2>/dev/null || true
        # shellcheck disable=SC2086
        kill -KILL $procs 2>/dev/null || true
        for ((i = 0; i < 50; i++)); do
          [ -z "$(job_procs)" ] && break
          sleep 0.1
        done
      fi
      # Deepest first: srun's tasks have cgroups of their own below the job's.
      find "$job_dir" -depth -type d -exec rmdir {} + 2>/dev/null
      [ ! -d "$job_dir" ] || { say "cannot remove $job_dir"; left_cgroups=1; }
    done
    for uid_dir in "$node_dir"/uid_*; do
      [ -d "$uid_dir" ] && rmdir "$uid_dir" 2>/dev/null
    done
    rmdir "$node_dir" 2>/dev/null || { say "cannot remove $node_dir"; left_cgroups=1; }
  done
done

if [ "$CLEAN" = yes ]; then
  rm -rf "$QS"
  say "removed $QS"
  rmdir "$REPO/run" 2>/dev/null || true
else
  say "configuration, state and logs kept in $QS ('make down CLEAN=1' removes them)"
fi
say "stopped"
exit "$left_cgroups"
