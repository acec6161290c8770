#include "conf/unenforced_keys.h"

#include <fmt/format.h>

#include "common/strings.h"

namespace rota::conf {
namespace {

struct Unenforced {
  KeyPlace place;
  std::string_view key;  // Canonical spelling, as Slurm's documentation writes it
  // A value (any case) that asks for what Rota does anyway: no warning for it.
  std::string_view same_as_rota = {};
};

using P = KeyPlace;

// Every key Rota reads (it parses, so a bad value is still an error, or
// merely accepts) without acting on it. When a feature makes a key take
// effect, its line goes. Keys whose value Rota stores for `scontrol show`
// but never uses are here too: shown is not enforced.
constexpr Unenforced kUnenforcedKeys[] = {
    // slurm.conf, cluster-wide.
    {P::kSlurmConf, "AccountingStorageExternalHost"},
    {P::kSlurmConf, "AccountingStoragePass"},
    {P::kSlurmConf, "AccountingStorageUser"},
    {P::kSlurmConf, "AcctGatherNodeFreq"},
    {P::kSlurmConf, "CommunicationParameters"},
    {P::kSlurmConf, "CompleteWait"},
    {P::kSlurmConf, "CredType"},
    {P::kSlurmConf, "DefMemPerNode"},
    {P::kSlurmConf, "DependencyParameters"},
    {P::kSlurmConf, "FairShareDampeningFactor"},
    {P::kSlurmConf, "GpuFreqDef"},
    {P::kSlurmConf, "InactiveLimit"},
    {P::kSlurmConf, "JobAcctGatherParams"},
    {P::kSlurmConf, "JobCompLoc"},
    {P::kSlurmConf, "JobCompType"},
    {P::kSlurmConf, "JobSubmitPlugins"},
    {P::kSlurmConf, "KillOnBadExit"},
    {P::kSlurmConf, "LaunchParameters"},
    {P::kSlurmConf, "LogTimeFormat"},
    {P::kSlurmConf, "MaxMemPerNode"},
    {P::kSlurmConf, "MaxStepCount"},
    {P::kSlurmConf, "MaxTasksPerNode"},
    {P::kSlurmConf, "MessageTimeout"},
    {P::kSlurmConf, "MpiParams"},
    {P::kSlurmConf, "PluginDir"},
    {P::kSlurmConf, "PriorityParameters"},
    // Jobs are always tracked by their cgroup.
    {P::kSlurmConf, "ProctrackType", "proctrack/cgroup"},
    {P::kSlurmConf, "PrologEpilogTimeout"},
    {P::kSlurmConf, "RebootProgram"},
    {P::kSlurmConf, "ResumeTimeout"},
    {P::kSlurmConf, "ResvOverRun"},
    {P::kSlurmConf, "SlurmctldDebug"},
    {P::kSlurmConf, "SlurmctldLogFile"},
    {P::kSlurmConf, "SlurmctldPidFile"},
    {P::kSlurmConf, "SlurmctldSyslogDebug"},
    {P::kSlurmConf, "SlurmdDebug"},
    {P::kSlurmConf, "SlurmdLogFile"},
    {P::kSlurmConf, "SlurmdPidFile"},
    {P::kSlurmConf, "SlurmdSyslogDebug"},
    {P::kSlurmConf, "SlurmdUser"},
    {P::kSlurmConf, "SlurmSchedLogFile"},
    {P::kSlurmConf, "SlurmSchedLogLevel"},
    {P::kSlurmConf, "SrunEpilog"},
    {P::kSlurmConf, "SrunProlog"},
    {P::kSlurmConf, "SuspendTime"},
    {P::kSlurmConf, "SwitchType", "switch/none"},
    {P::kSlurmConf, "TaskPluginParam"},
    {P::kSlurmConf, "TCPTimeout"},
    {P::kSlurmConf, "TmpFS"},
    {P::kSlurmConf, "TreeWidth"},
    {P::kSlurmConf, "UnkillableStepProgram"},
    {P::kSlurmConf, "UnkillableStepTimeout"},
    {P::kSlurmConf, "UsePAM"},
    {P::kSlurmConf, "VSizeFactor"},
    {P::kSlurmConf, "WaitTime"},

    // NodeName lines.
    {P::kNodeLine, "Bcast"},
    {P::kNodeLine, "CoreSpecCount"},
    {P::kNodeLine, "CpuBind"},
    {P::kNodeLine, "CpuSpecList"},
    {P::kNodeLine, "MemSpecLimit"},
    {P::kNodeLine, "TRESWeights"},

    // PartitionName lines.
    {P::kPartitionLine, "AllocNodes"},
    {P::kPartitionLine, "Alternate"},
    {P::kPartitionLine, "CpuBind"},
    {P::kPartitionLine, "DefMemPerNode"},
    {P::kPartitionLine, "DisableRootJobs"},
    {P::kPartitionLine, "ExclusiveUser"},  // Shown by scontrol, not enforced
    {P::kPartitionLine, "JobDefaults"},
    {P::kPartitionLine, "LLN"},
    {P::kPartitionLine, "MaxMemPerNode"},  // Shown by scontrol, not enforced
    {P::kPartitionLine, "MinNodes"},       // Shown by scontrol and sinfo, not enforced
    {P::kPartitionLine, "PowerDownOnIdle"},
    {P::kPartitionLine, "ReqResv"},
    {P::kPartitionLine, "ResumeTimeout"},
    {P::kPartitionLine, "RootOnly"},
    {P::kPartitionLine, "SelectTypeParameters"},
    {P::kPartitionLine, "SuspendTime"},
    {P::kPartitionLine, "SuspendTimeout"},

    // cgroup.conf.
    {P::kCgroupConf, "AllowedKmemSpace"},
    {P::kCgroupConf, "AllowedSwapSpace"},
    {P::kCgroupConf, "CgroupAutomount"},
    {P::kCgroupConf, "CgroupReleaseAgentDir"},
    {P::kCgroupConf, "ConstrainKmemSpace"},
    {P::kCgroupConf, "ConstrainSwapSpace"},
    {P::kCgroupConf, "EnableControllers"},
    {P::kCgroupConf, "IgnoreSystemd", "yes"},  // Rota never asks systemd for a scope
    {P::kCgroupConf, "IgnoreSystemdOnFailure"},
    {P::kCgroupConf, "MaxKmemPercent"},
    {P::kCgroupConf, "MaxRAMPercent"},
    {P::kCgroupConf, "MaxSwapPercent"},
    {P::kCgroupConf, "MemorySwappiness"},
    {P::kCgroupConf, "MinKmemSpace"},
    {P::kCgroupConf, "SignalChildrenProcesses"},

    // gres.conf.
    {P::kGresConf, "Links"},

    // SchedulerParameters options of Slurm 22.05 that Rota does not act on.
    // Heterogeneous jobs, burst buffers, node boot and the controller's RPC
    // throttling have no counterpart here; the others are scheduling tunables
    // not (yet) implemented.
    {P::kSchedulerParameters, "allow_zero_lic"},
    {P::kSchedulerParameters, "assoc_limit_stop"},
    {P::kSchedulerParameters, "batch_sched_delay"},
    {P::kSchedulerParameters, "bb_array_stage_cnt"},
    {P::kSchedulerParameters, "bf_hetjob_immediate"},
    {P::kSchedulerParameters, "bf_hetjob_prio"},
    {P::kSchedulerParameters, "bf_ignore_newly_avail_nodes"},
    {P::kSchedulerParameters, "bf_licenses"},
    {P::kSchedulerParameters, "bf_max_job_array_resv"},
    {P::kSchedulerParameters, "bf_max_job_assoc"},
    {P::kSchedulerParameters, "bf_max_job_user_part"},
    {P::kSchedulerParameters, "bf_node_space_size"},
    {P::kSchedulerParameters, "bf_one_resv_per_job"},
    {P::kSchedulerParameters, "bf_running_job_reserve"},
    {P::kSchedulerParameters, "bf_window_linear"},
    {P::kSchedulerParameters, "bf_yield_interval"},
    {P::kSchedulerParameters, "bf_yield_sleep"},
    {P::kSchedulerParameters, "build_queue_timeout"},
    {P::kSchedulerParameters, "correspond_after_task_cnt"},
    // Parsed (a bad value is still an error) but not acted on: every main
    // pass goes through the whole queue, at every event.
    {P::kSchedulerParameters, "default_queue_depth"},
    {P::kSchedulerParameters, "sched_interval"},
    {P::kSchedulerParameters, "sched_min_interval"},
    {P::kSchedulerParameters, "defer"},
    {P::kSchedulerParameters, "delay_boot"},
    {P::kSchedulerParameters, "disable_hetjob_steps"},
    {P::kSchedulerParameters, "disable_job_shrink"},
    {P::kSchedulerParameters, "enable_hetjob_steps"},
    {P::kSchedulerParameters, "enable_user_top"},
    {P::kSchedulerParameters, "ignore_numa"},
    {P::kSchedulerParameters, "inventory_interval"},
    {P::kSchedulerParameters, "max_depend_depth"},
    {P::kSchedulerParameters, "max_rpc_cnt"},
    {P::kSchedulerParameters, "max_sched_time"},
    {P::kSchedulerParameters, "max_switch_wait"},
    {P::kSchedulerParameters, "no_backup_scheduling"},
    {P::kSchedulerParameters, "no_env_cache"},
    {P::kSchedulerParameters, "pack_serial_at_end"},
    {P::kSchedulerParameters, "preempt_reorder_count"},
    {P::kSchedulerParameters, "preempt_strict_order"},
    {P::kSchedulerParameters, "reduce_completing_frag"},
    {P::kSchedulerParameters, "requeue_setup_env_fail"},
    {P::kSchedulerParameters, "salloc_wait_nodes"},
    {P::kSchedulerParameters, "sbatch_wait_nodes"},
    {P::kSchedulerParameters, "spec_cores_first"},
    {P::kSchedulerParameters, "step_retry_count"},
    {P::kSchedulerParameters, "step_retry_time"},
    {P::kSchedulerParameters, "whole_hetjob"},
};

const Unenforced* Find(KeyPlace place, std::string_view key) {
  for (const Unenforced& u : kUnenforcedKeys) {
    if (u.place == place && EqualsIgnoreCase(u.key, key)) return &u;
  }
  return nullptr;
}

}  // namespace

std::string_view UnenforcedKey(KeyPlace place, std::string_view key) {
  const Unenforced* u = Find(place, key);
  return u == nullptr ? std::string_view() : u->key;
}

bool WarnIfUnenforced(KeyPlace place, std::string_view key, std::string_view value,
                      const SourceLocation& where, Diagnostics& diags) {
  const Unenforced* u = Find(place, key);
  if (u == nullptr) return false;
  if (u->same_as_rota.empty() || !EqualsIgnoreCase(u->same_as_rota, value)) {
    diags.Warning(
        where, fmt::format("{}{} is accepted, has no effect in Rota",
                           place == KeyPlace::kSchedulerParameters ? "SchedulerParameters: " : "",
                           u->key));
  }
  return true;
}

}  // namespace rota::conf
