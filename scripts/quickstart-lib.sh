# Shared by quickstart.sh and down.sh (sourced; needs QS and CONF set).

# The pid in run/quickstart/pids/$1.pid if that process is alive and is that daemon of this
# cluster; nothing (and status 1) otherwise.
running_pid() {
  local name="$1" pid_file="$QS/pids/$1.pid" pid cmd
  [ -f "$pid_file" ] || return 1
  pid="$(tr -dc '0-9' <"$pid_file")"
  [ -n "$pid" ] || return 1
  [ -r "/proc/$pid/cmdline" ] || return 1
  cmd="$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)" || return 1
  if [ "$name" = munged ]; then
    [[ "$cmd" == */munged\ --foreground\ --force\ --socket="$QS/munge/munge.socket"\ * ]] || return 1
  elif [ "$name" = rotactld ] || [ "$name" = rotadbd ] || [ "$name" = rotarestd ]; then
    [[ "$cmd" == */"$name"\ -f\ "$CONF"\ * ]] || return 1
  else
    [[ "$cmd" == */rotad\ -N\ "$name"\ -f\ "$CONF"\ * ]] || return 1
  fi
  echo "$pid"
}
