#pragma once

// The typed contents of slurm.conf: cluster-wide settings, nodes and partitions.
// Defaults are Slurm's documented defaults. Times are seconds (DurationSecs).

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/duration.h"
#include "common/gres_spec.h"
#include "common/memory_size.h"
#include "common/tres.h"
#include "conf/diagnostics.h"
#include "conf/gpu_idle_policy.h"

namespace rota::conf {

inline constexpr uint32_t kUnlimitedCount = UINT32_MAX;

// SlurmctldHost=name or name(address).
struct ControllerHost {
  std::string name;
  std::string address;  // Empty: resolve `name`.
};

// SchedulerParameters=..., the keys the main pass and backfill understand.
struct SchedulerParameters {
  DurationSecs bf_window = 24 * 3600;  // Written in minutes in the file.
  DurationSecs bf_resolution = 60;
  uint32_t bf_max_job_test = 500;
  uint32_t bf_max_job_part = 0;  // 0: no limit.
  uint32_t bf_max_job_user = 0;
  bool bf_continue = false;
  DurationSecs bf_interval = 30;
  DurationSecs bf_min_age_reserve = 0;
  uint32_t bf_min_prio_reserve = 0;         // 0: every job may hold a reservation
  uint32_t bf_job_part_count_reserve = 0;   // Reservations per partition; 0: every job.
  std::optional<DurationSecs> bf_max_time;  // Defaults to bf_interval.
  uint32_t bf_max_job_start = 0;            // Jobs one backfill pass may start; 0: no limit
  // Tasks one job array may hold; 0: only MaxArraySize bounds it (task ids).
  uint32_t max_array_tasks = 0;
  // The running jobs to displace are taken youngest first (latest start), not
  // lowest priority first.
  bool preempt_youngest_first = false;
  // A job whose node's Prolog failed is requeued without the hold (Slurm's
  // default holds it).
  bool nohold_on_prolog_fail = false;
  // Rota's own: backfill reservations for later in the plain node order,
  // idle nodes included, instead of on busy nodes first (sched/backfill.h).
  bool bf_reserve_in_node_order = false;
  // Rota's own: plan a job with a runtime predicted from its user's last
  // finished jobs instead of its time limit (sched/runtime_predictor.h).
  // Planning only; the limit still ends it.
  bool rota_predict_runtime = false;
  // Cancel a job whose dependency can never be satisfied, unless it asked
  // otherwise (--kill-on-invalid-dep=no).
  bool kill_invalid_depend = false;
  uint32_t default_queue_depth = 100;
  uint32_t partition_job_depth = 0;
  DurationSecs sched_interval = 60;
  int64_t sched_min_interval_us = 2;
  uint32_t sched_max_job_start = 0;
  // The largest batch script the controller accepts, in bytes (Slurm's
  // max_script_size, default 4 MB). It also bounds a job's environment.
  uint64_t max_script_size = 4 * 1024 * 1024;
};

struct PriorityWeights {
  uint32_t age = 0;
  uint32_t assoc = 0;
  uint32_t fairshare = 0;
  uint32_t job_size = 0;
  uint32_t partition = 0;
  uint32_t qos = 0;
  TresWeights tres;
};

struct NodeConfig {
  std::string name;
  std::string hostname;  // NodeHostname; defaults to name.
  std::string address;   // NodeAddr; defaults to hostname.
  uint16_t port = 0;     // Port=; 0 means SlurmdPort.
  uint32_t cpus = 1;
  uint32_t boards = 1;
  uint32_t sockets = 1;
  uint32_t cores_per_socket = 1;
  uint32_t threads_per_core = 1;
  MemoryMb real_memory_mb = 1;
  MemoryMb tmp_disk_mb = 0;
  std::vector<GresSpec> gres;
  std::vector<std::string> features;
  uint32_t weight = 1;
  std::string state = "UNKNOWN";
  std::string reason;
  SourceLocation where;

  uint32_t cores() const { return sockets * cores_per_socket; }
};

struct PartitionConfig {
  std::string name;
  std::string nodes_expr;          // As written ("gpu[01-16]", "ALL").
  std::vector<std::string> nodes;  // Resolved, in configuration order.
  bool is_default = false;
  DurationSecs max_time = kInfiniteDuration;
  std::optional<DurationSecs> default_time;  // Unset: jobs get max_time.
  uint32_t priority_tier = 1;
  uint32_t priority_job_factor = 1;
  std::string preempt_mode;  // Empty: the cluster's PreemptMode.
  DurationSecs grace_time = 0;
  std::string qos;
  TresWeights billing_weights;
  std::vector<std::string> allow_accounts;  // Empty: all.
  std::vector<std::string> deny_accounts;
  std::vector<std::string> allow_groups;  // Empty: all.
  std::vector<std::string> allow_qos;     // Empty: all.
  std::vector<std::string> deny_qos;      // Empty: none.
  std::string state = "UP";               // UP, DOWN, DRAIN, INACTIVE.
  uint32_t max_nodes = kUnlimitedCount;
  uint32_t min_nodes = 0;
  bool exclusive_user = false;
  std::string oversubscribe = "NO";
  bool hidden = false;
  std::optional<MemoryMb> def_mem_per_cpu;
  std::optional<MemoryMb> max_mem_per_node;
  // Unset: the cluster-wide DefCpuPerGPU / DefMemPerGPU / MaxMemPerCPU /
  // OverTimeLimit apply.
  std::optional<uint32_t> def_cpu_per_gpu;
  std::optional<MemoryMb> def_mem_per_gpu;
  std::optional<MemoryMb> max_mem_per_cpu;
  std::optional<DurationSecs> over_time_limit;
  // CPUs of one node that the partition's jobs may hold together.
  uint32_t max_cpus_per_node = kUnlimitedCount;
  // GpuIdlePolicy= (Rota's own): when its jobs' GPUs count as idle, and what follows.
  GpuIdlePolicy gpu_idle;
  SourceLocation where;
};

// Everything of slurm.conf except nodes and partitions.
struct SlurmConf {
  std::string cluster_name;
  std::vector<ControllerHost> controllers;  // Primary first, then backup.
  uint16_t slurmctld_port = 6817;
  uint16_t slurmd_port = 6818;
  std::string slurmd_spool_dir = "/var/spool/slurmd";
  std::string state_save_location = "/var/spool/slurmctld";
  std::string slurm_user = "root";
  std::string auth_type = "auth/munge";
  std::vector<std::string> gres_types;
  std::string select_type = "select/cons_tres";
  std::vector<std::string> select_type_parameters;
  std::string scheduler_type = "sched/backfill";
  SchedulerParameters scheduler;
  std::string priority_type = "priority/basic";
  PriorityWeights priority_weights;
  DurationSecs priority_decay_half_life = 7 * 24 * 3600;
  DurationSecs priority_max_age = 7 * 24 * 3600;
  DurationSecs priority_calc_period = 5 * 60;
  bool priority_favor_small = false;
  std::vector<std::string> priority_flags;
  std::string accounting_storage_type = "accounting_storage/none";
  std::string accounting_storage_host;
  uint16_t accounting_storage_port = 6819;
  std::vector<std::string> accounting_storage_tres;
  std::vector<std::string> accounting_storage_enforce;
  // TrackWCKey: jobs keep the --wckey they give (without it, it is ignored).
  bool track_wckey = false;
  // AccountingStoreFlags: job_comment, job_env, job_script (what accounting
  // keeps beyond the usual record).
  std::vector<std::string> accounting_store_flags;
  bool StoresInAccounting(std::string_view flag) const {
    return std::find(accounting_store_flags.begin(), accounting_store_flags.end(), flag) !=
           accounting_store_flags.end();
  }
  std::string preempt_type = "preempt/none";
  std::vector<std::string> preempt_mode = {"OFF"};
  DurationSecs preempt_exempt_time = 0;
  // PreemptMode=GANG: how long each set of jobs sharing resources runs
  // before the next takes its turn (docs/gang.md).
  DurationSecs scheduler_time_slice = 30;
  std::string proctrack_type = "proctrack/cgroup";
  std::vector<std::string> task_plugins;
  std::string mpi_default = "none";  // srun's --mpi when not given (docs/mpi.md)
  std::vector<std::string> prolog_flags;
  std::string prolog;
  std::string epilog;
  // Run as the job's user in each task's process before the task (its output
  // can set the task's environment: noded/stepd/task_starter.h) and after it ends.
  std::string task_prolog;
  std::string task_epilog;
  // Which of the submitting command's resource limits its job's tasks get
  // (common/resource_limits.h); empty: ALL. Only one of the two may be set.
  std::vector<std::string> propagate_resource_limits;
  std::vector<std::string> propagate_resource_limits_except;
  // PrivateData: what users may see only of their own (lower case: jobs,
  // usage, users, accounts, ...); root, SlurmUser and operators see all.
  std::vector<std::string> private_data;
  // MailProg: what the controller runs to mail a job's --mail-type events;
  // empty: Slurm's default, /bin/mail (ctld/server/mail_sender.h).
  std::string mail_prog;
  // EpilogSlurmctld: what the controller runs (as itself) for each job whose
  // allocation ends (ctld/server/slurmctld_scripts.h).
  std::string epilog_slurmctld;
  // PrologSlurmctld: run by the controller when a job is allocated, before
  // its launch; a failure requeues the job, or kills it when it cannot be.
  std::string prolog_slurmctld;
  std::string health_check_program;
  DurationSecs health_check_interval = 0;
  // JobAcctGatherFrequency's task= (a bare number is task=): how often rotad
  // samples the GPUs of running jobs (gpu/gpu_watch.h); 0 samples only when
  // a job ends. Its other kinds (energy=, network=, filesystem=) are read and
  // have no effect.
  DurationSecs job_acct_gather_task_s = 30;
  // JobAcctGatherType: jobacct_gather/cgroup gives each job a cgroup v1
  // cpuacct cage for sstat's CPU time; the others (linux, none) read it from
  // /proc (noded/cage/proc_cpu_time.h).
  std::string job_acct_gather_type = "jobacct_gather/none";
  std::vector<std::string> health_check_node_state = {"ANY"};
  std::string topology_plugin = "topology/none";
  DurationSecs kill_wait = 30;
  // How long a launched batch job may be missing from its node's job list
  // before the controller believes the node lost it.
  DurationSecs batch_start_timeout = 10;
  DurationSecs min_job_age = 300;
  uint32_t max_job_count = 10000;
  uint32_t max_array_size = 1001;
  DurationSecs slurmd_timeout = 300;
  DurationSecs slurmctld_timeout = 120;
  uint32_t return_to_service = 0;
  std::vector<std::string> slurmd_parameters;
  // SlurmctldParameters: Rota acts on enable_configless (conf/config_files.h);
  // the other items are kept and warned about.
  std::vector<std::string> slurmctld_parameters;
  bool enable_configless = false;
  std::optional<MemoryMb> def_mem_per_cpu;
  // For jobs that ask for GPUs: CPUs per GPU without --cpus-per-task or
  // --cpus-per-gpu; memory per GPU without --mem, --mem-per-cpu or --mem-per-gpu.
  std::optional<uint32_t> def_cpu_per_gpu;
  std::optional<MemoryMb> def_mem_per_gpu;
  // A job asking for more memory per CPU gets more CPUs per task instead.
  std::optional<MemoryMb> max_mem_per_cpu;
  // NO: a job beyond its partition's limits pends (PartitionTimeLimit...);
  // ANY or ALL (the same with one partition per job): it is refused at submit.
  std::string enforce_part_limits = "NO";
  // How long a job may run past its time limit before it is killed;
  // kInfiniteDuration: never.
  DurationSecs over_time_limit = 0;
  bool job_requeue = true;  // Batch jobs without --requeue/--no-requeue may be requeued
  // When fair-share usage goes back to 0: NONE, NOW (once, at start),
  // DAILY, WEEKLY, MONTHLY, QUARTERLY, YEARLY.
  std::string priority_usage_reset_period = "NONE";
  // Licenses=: the cluster's own licenses and how many of each; jobs ask
  // with -L and wait (reason Licenses) until enough are free.
  std::map<std::string, uint32_t> licenses;
  uint32_t first_job_id = 1;

  // Every key as written in the file (canonical spelling -> value), for
  // `scontrol show config` and for keys that later features will read.
  std::map<std::string, std::string> raw;
};

}  // namespace rota::conf
