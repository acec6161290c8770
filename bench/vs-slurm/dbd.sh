#!/usr/bin/env bash
# Accounting at 100,000 jobs, Rota's rotadbd (SQLite) against Slurm 22.05's slurmdbd on MariaDB,
# on this machine, side by side: a throwaway MariaDB (own datadir, loopback port, run as user
# mysql), slurmdbd and rotadbd on loopback ports with one munged (cluster.sh), the same cluster
# name and the same 100,000 finished jobs in both; each figure measured interleaved ROUNDS times.
# Installs slurmdbd and mariadb-server from Debian's packages when missing (root).
# Not part of `make test`; `make bench-vs-slurmdbd` runs it.
#
#   bash bench/vs-slurm/dbd.sh [ROTA_BIN]      (default build/bin, a RelWithDebInfo build)
#
# How the jobs get in: Rota's through rotadbd's RecordJobs RPC, 1,000 per request, as the
# controller's outbox sends them (bench/acct_load.cc, timed). Slurm's are written into
# slurmdbd's own tables with SQL (LOAD DATA into a staging table, then INSERT ... SELECT into
# bench_job_table with each job's association), after slurmdbd has made its schema and
# `sacctmgr -i add cluster/account/user` the associations: slurmdbd's ingestion path (jobs run
# through slurmctld) is not timed. The SQL load is timed and reported as such.
#
# stdout: `name value unit` lines: FIGURE_rota, FIGURE_slurm (medians) and FIGURE_ratio
# (Rota/Slurm of the medians, with the spread of the per-round ratios); also
# bench/results/vs-slurmdbd.json. Knobs: VS_ROUNDS (5), VS_JOBS (100000).
# shellcheck disable=SC2119,SC2120  # the q_* functions are called as "q_$q" with arguments
set -euo pipefail
export LC_ALL=C TZ=UTC
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
ROTA_BIN="${1:-$REPO/build/bin}"
case "$ROTA_BIN" in /*) ;; *) ROTA_BIN="$REPO/$ROTA_BIN" ;; esac
ROUNDS="${VS_ROUNDS:-5}"
JOBS="${VS_JOBS:-100000}"
CLUSTER=bench
START=1795950000  # 2026-11-28 09:40 UTC: the first job's submit time
# Debian's base users, present everywhere: the first owns 1% of the jobs.
USERS=daemon,bin,sys,games,man,lp,mail
ACCOUNTS=physics,chemistry

log() { echo "vs-slurmdbd: $*" >&2; }
die() { log "$*"; exit 1; }
# shellcheck source=bench/vs-slurm/rounds.sh
source "$HERE/rounds.sh"

[ "$(id -u)" = 0 ] || die "needs root (slurmdbd's SlurmUser, MariaDB run as user mysql)"
for t in rotadbd sacct sacctmgr acct_load; do
  [ -x "$ROTA_BIN/$t" ] || die "$ROTA_BIN/$t not found: make build first"
done
PKGS="slurmdbd mariadb-server slurm-client munge"
if ! command -v slurmdbd >/dev/null || ! command -v mariadbd >/dev/null || [ ! -x /usr/bin/sacct ] ||
  ! command -v munged >/dev/null; then
  log "installing $PKGS from Debian's packages"
  # shellcheck disable=SC2086
  apt-get install -y -q --no-install-recommends $PKGS >/dev/null 2>&1 || {
    apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends $PKGS >/dev/null
  } || die "could not install $PKGS"
fi
id mysql >/dev/null 2>&1 || die "no user mysql (mariadb-server makes it)"
IFS=, read -r -a USER_LIST <<<"$USERS"
for u in "${USER_LIST[@]}"; do id "$u" >/dev/null 2>&1 || die "no user $u"; done

WORK="$(mktemp -d /var/tmp/rota-vs-slurmdbd.XXXXXX)"
chmod 0755 "$WORK"
stop_pid() {  # NAME: the pid in $WORK/pids/NAME, TERM then KILL
  local f="$WORK/pids/$1" pid
  [ -f "$f" ] || return 0
  pid="$(cat "$f")"
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
  rm -f "$f"
}
cleanup() {
  stop_pid rotadbd
  stop_pid slurmdbd
  stop_pid mariadbd
  bash "$HERE/cluster.sh" down "$WORK" 2>/dev/null || true  # munged
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

spawn() {  # NAME CMD...: own session, output to $WORK/log/NAME.log, pid in $WORK/pids/NAME
  local name="$1"; shift
  setsid "$@" >>"$WORK/log/$name.log" 2>&1 </dev/null &
  echo $! >"$WORK/pids/$name"
}
wait_for() {  # SECONDS CMD...: until CMD succeeds
  local secs="$1" i; shift
  for ((i = 0; i < secs * 10; i++)); do "$@" >/dev/null 2>&1 && return 0; sleep 0.1; done
  return 1
}
free_port() {  # below the ephemeral range (32768-), where outgoing connections take theirs
  local p
  while true; do
    p=$((10000 + RANDOM % 22000))
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
  done
}
rss_mib() { awk '/^VmRSS/ { printf "%.1f\n", $2 / 1024 }' "/proc/$(cat "$WORK/pids/$1")/status"; }

bash "$HERE/cluster.sh" munge "$WORK"
MUNGE="$WORK/munge/sock"
mkdir -p "$WORK/log" "$WORK/pids" "$WORK/rota/state" "$WORK/slurm" "$WORK/mysql"

# ---- MariaDB: a private server with Slurm's recommended InnoDB settings
DB_PORT=$(free_port)
DB_PASS="bench$RANDOM$RANDOM"
chown mysql:mysql "$WORK/mysql"
mariadb-install-db --no-defaults --user=mysql --datadir="$WORK/mysql/data" --skip-test-db \
  --auth-root-authentication-method=socket >"$WORK/log/install-db.log" 2>&1 ||
  { tail -n 20 "$WORK/log/install-db.log" >&2; die "mariadb-install-db failed"; }
spawn mariadbd /usr/sbin/mariadbd --no-defaults --user=mysql --datadir="$WORK/mysql/data" \
  --socket="$WORK/mysql/sock" --pid-file="$WORK/mysql/pid" --bind-address=127.0.0.1 \
  --port="$DB_PORT" --skip-name-resolve --innodb-buffer-pool-size=1024M \
  --innodb-log-file-size=64M --innodb-lock-wait-timeout=900 --local-infile=1
sql() { mariadb --no-defaults -S "$WORK/mysql/sock" -u root "$@"; }
wait_for 60 sql -e 'SELECT 1' || { tail -n 20 "$WORK/log/mariadbd.log" >&2; die "MariaDB did not start"; }
sql -e "CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY '$DB_PASS';
  GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';"

# ---- the two accounting daemons, one slurm.conf each (same cluster name)
write_slurm_conf() {  # DIR DBD_PORT
  cat >"$1/slurm.conf" <<CONF
ClusterName=$CLUSTER
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmctldPort=$(free_port)
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$MUNGE
PluginDir=/usr/lib/x86_64-linux-gnu/slurm-wlm
StateSaveLocation=$1/state
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
AccountingStoragePort=$2
NodeName=n[1-4] NodeAddr=127.0.0.1 CPUs=32 RealMemory=512000 State=UNKNOWN
PartitionName=batch Nodes=ALL Default=YES State=UP
PartitionName=short Nodes=ALL State=UP
CONF
}
ROTA_PORT=$(free_port)
SLURM_PORT=$(free_port)
write_slurm_conf "$WORK/rota" "$ROTA_PORT"
write_slurm_conf "$WORK/slurm" "$SLURM_PORT"
# Slurm's commands take the munge socket for slurmdbd from here, not from AuthInfo.
echo "AccountingStoragePass=$MUNGE" >>"$WORK/slurm/slurm.conf"
mkdir -p "$WORK/slurm/state"
(umask 077 && cat >"$WORK/slurm/slurmdbd.conf" <<CONF
AuthType=auth/munge
AuthInfo=socket=$MUNGE
PluginDir=/usr/lib/x86_64-linux-gnu/slurm-wlm
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort=$SLURM_PORT
SlurmUser=root
DebugLevel=info
PidFile=$WORK/slurm/slurmdbd.pid
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$DB_PORT
StorageUser=slurm
StoragePass=$DB_PASS
StorageLoc=slurm_acct_db
CONF
)
spawn slurmdbd env SLURM_CONF="$WORK/slurm/slurm.conf" /usr/sbin/slurmdbd -D
spawn rotadbd "$ROTA_BIN/rotadbd" -f "$WORK/rota/slurm.conf" -s "$WORK/rota/state"

# The commands of one kind, against its daemon.
use() {
  KIND="$1"
  export SLURM_CONF="$WORK/$KIND/slurm.conf"
  if [ "$KIND" = slurm ]; then CMD=/usr/bin; else CMD="$ROTA_BIN"; fi
}
for k in rota slurm; do
  use "$k"
  wait_for 60 "$CMD/sacctmgr" -n list cluster ||
    { tail -n 20 "$WORK/log/${k/rota/rotadbd}"*.log >&2; die "$k: the accounting daemon did not answer"; }
  # Slurm needs the cluster registered for its tables; Rota's is its ClusterName already.
  [ "$k" = slurm ] && "$CMD/sacctmgr" -i add cluster "$CLUSTER" >/dev/null
  "$CMD/sacctmgr" -i add account "$ACCOUNTS" >/dev/null
  "$CMD/sacctmgr" -i add user "$USERS" Account="$ACCOUNTS" >/dev/null
done
[ "$(sql -N -e "SHOW TABLES FROM slurm_acct_db LIKE '${CLUSTER}_job_table'")" = "${CLUSTER}_job_table" ] ||
  die "slurmdbd made no ${CLUSTER}_job_table"

# ---- the same jobs into both

use rota
ROTA_RECORD_MS=$("$ROTA_BIN/acct_load" send "$SLURM_CONF" "$JOBS" "$START" "$USERS" | awk '$1 == "record_ms" { print $2 }')
log "rota: $JOBS jobs recorded through RecordJobs in $ROTA_RECORD_MS ms"

"$ROTA_BIN/acct_load" tsv "$JOBS" "$START" "$USERS" >"$WORK/jobs.tsv"
chmod 0644 "$WORK/jobs.tsv"
t=$(now)
sql --local-infile=1 slurm_acct_db -e "
CREATE TEMPORARY TABLE staging (id_job INT UNSIGNED, job_name TINYTEXT, id_user INT UNSIGNED,
  id_group INT UNSIGNED, user TINYTEXT, account TINYTEXT, \`partition\` TINYTEXT,
  state INT UNSIGNED, exit_code INT UNSIGNED, time_submit BIGINT UNSIGNED,
  time_eligible BIGINT UNSIGNED, time_start BIGINT UNSIGNED, time_end BIGINT UNSIGNED,
  nodelist TEXT, cpus_req INT UNSIGNED, nodes_alloc INT UNSIGNED, tres_alloc TEXT,
  tres_req TEXT, mem_req BIGINT UNSIGNED, timelimit INT UNSIGNED);
LOAD DATA LOCAL INFILE '$WORK/jobs.tsv' INTO TABLE staging;
INSERT INTO ${CLUSTER}_job_table (mod_time, account, cpus_req, derived_ec, exit_code, id_assoc,
  id_job, id_qos, id_user, id_group, job_name, mem_req, nodelist, nodes_alloc, node_inx,
  \`partition\`, priority, state, timelimit, time_submit, time_eligible, time_start, time_end,
  tres_alloc, tres_req, kill_requid, id_resv, id_wckey, het_job_id, het_job_offset,
  state_reason_prev)
SELECT UNIX_TIMESTAMP(), s.account, s.cpus_req, 0, s.exit_code, a.id_assoc, s.id_job, 1,
  s.id_user, s.id_group, s.job_name, s.mem_req, s.nodelist, s.nodes_alloc,
  CAST(CAST(SUBSTRING(s.nodelist, 2) AS UNSIGNED) - 1 AS CHAR), s.\`partition\`, 1, s.state,
  s.timelimit, s.time_submit, s.time_eligible, s.time_start, s.time_end, s.tres_alloc,
  s.tres_req, IF(s.state = 4, s.id_user, NULL), 0, 0, 0, 4294967294, 0
FROM staging s JOIN ${CLUSTER}_assoc_table a
  ON a.user = s.user AND a.acct = s.account AND a.\`partition\` = '' AND a.deleted = 0;"
SLURM_SQL_MS=$(ms_since "$t")
log "slurm: $JOBS jobs written into ${CLUSTER}_job_table with SQL in $SLURM_SQL_MS ms"
[ "$(sql -N slurm_acct_db -e "SELECT COUNT(*) FROM ${CLUSTER}_job_table")" = "$JOBS" ] ||
  die "slurm: ${CLUSTER}_job_table does not hold $JOBS jobs"

# ---- the queries; each must list the same jobs on both sides
WINDOW=(-S "$(date -u -d "@$((START - 3600))" +%Y-%m-%dT%H:%M:%S)" -E "$(date -u -d "@$((START + JOBS / 10 + 3 * 3600))" +%Y-%m-%dT%H:%M:%S)")
ONE_JOB=$((JOBS / 2))
FEW_USER=${USER_LIST[0]}
FORMAT=JobID,JobName,User,Account,Partition,AllocCPUS,State,ExitCode,Elapsed,NodeList
q_all() { "$CMD/sacct" -a -X "${WINDOW[@]}" "$@"; }
q_one() { "$CMD/sacct" -X -j "$ONE_JOB" "$@"; }
q_user() { "$CMD/sacct" -X -u "$FEW_USER" "${WINDOW[@]}" "$@"; }
q_parsable() { "$CMD/sacct" -a -P "${WINDOW[@]}" --format="$FORMAT" "$@"; }
declare -A EXPECT=([all]=$JOBS [one]=1 [user]=$((JOBS / 100)) [parsable]=$JOBS)
for k in rota slurm; do
  use "$k"
  for q in all one user parsable; do
    n=$("q_$q" -n -P | wc -l)
    [ "$n" = "${EXPECT[$q]}" ] || die "$k: sacct ($q) lists $n jobs, expected ${EXPECT[$q]}"
  done
done
# The ten fields, row by row, are the same too (Slurm's output is the reference).
use rota; q_parsable -n >"$WORK/rota.psv"
use slurm; q_parsable -n >"$WORK/slurm.psv"
if cmp -s <(sort "$WORK/rota.psv") <(sort "$WORK/slurm.psv"); then
  SAME_ROWS=yes
else
  SAME_ROWS=no
  log "the -P listings differ, e.g.:"
  diff <(sort "$WORK/rota.psv") <(sort "$WORK/slurm.psv") | head -n 6 >&2 || true
fi
log "both list the same jobs for every query; identical -P rows: $SAME_ROWS"

fig_sacct_all_ms() { local t; t=$(now); q_all >/dev/null; ms_since "$t"; echo; }
fig_sacct_one_ms() { local t; t=$(now); q_one >/dev/null; ms_since "$t"; echo; }
fig_sacct_user_ms() { local t; t=$(now); q_user >/dev/null; ms_since "$t"; echo; }
fig_sacct_parsable_ms() { local t; t=$(now); q_parsable >/dev/null; ms_since "$t"; echo; }
fig_dbd_rss_mib() { if [ "$KIND" = slurm ]; then rss_mib slurmdbd; else rss_mib rotadbd; fi; }
fig_db_rss_mib() {  # what keeps the data: MariaDB for Slurm, rotadbd itself (SQLite) for Rota
  if [ "$KIND" = slurm ]; then
    awk -v a="$(rss_mib slurmdbd)" -v b="$(rss_mib mariadbd)" 'BEGIN { printf "%.1f\n", a + b }'
  else rss_mib rotadbd; fi
}

rounds_start "$WORK"
run_rounds sacct_all_ms sacct_one_ms sacct_user_ms sacct_parsable_ms
run_rounds dbd_rss_mib db_rss_mib

# ---- report
declare -A UNIT=([sacct_all_ms]=ms [sacct_one_ms]=ms [sacct_user_ms]=ms [sacct_parsable_ms]=ms
  [dbd_rss_mib]=MiB [db_rss_mib]=MiB)
declare -A NAME=([sacct_all_ms]="sacct_all_${JOBS}_ms" [sacct_one_ms]=sacct_one_job_ms
  [sacct_user_ms]="sacct_user_$((JOBS / 100))_ms" [sacct_parsable_ms]="sacct_parsable_10_fields_${JOBS}_ms"
  [dbd_rss_mib]=dbd_rss_mib [db_rss_mib]=dbd_with_database_rss_mib)
echo "record_${JOBS}_rota $ROTA_RECORD_MS ms (RecordJobs RPC, 1,000 per request)"
echo "record_${JOBS}_slurm_sql_load $SLURM_SQL_MS ms (LOAD DATA + INSERT SELECT, not slurmdbd's path)"
for f in sacct_all_ms sacct_one_ms sacct_user_ms sacct_parsable_ms dbd_rss_mib db_rss_mib; do
  summarize "$f" "${NAME[$f]}" "${UNIT[$f]}"
done
mkdir -p "$REPO/bench/results"
record_json="\"record_${JOBS}_ms\": {\"unit\": \"ms\", \"rota\": $ROTA_RECORD_MS, \"slurm_sql_load\": $SLURM_SQL_MS}"
echo "{\"rounds\": $ROUNDS, \"jobs\": $JOBS, \"same_parsable_rows\": \"$SAME_ROWS\", \"figures\": {$record_json, $SUMMARY_JSON}}" >"$REPO/bench/results/vs-slurmdbd.json"
