#include "conf/slurm_conf_parser.h"

#include <fmt/format.h>

#include "common/resource_limits.h"
#include "common/strings.h"
#include "conf/key_table.h"
#include "conf/license_list.h"
#include "conf/unenforced_keys.h"

namespace rota::conf {
namespace {

// PropagateResourceLimits[Except]: Slurm's limit names, and for the first
// key ALL and NONE.
Choices ResourceLimitChoices(bool all_or_none) {
  Choices choices;
  if (all_or_none) choices = {"ALL", "NONE"};
  for (std::string_view name : ResourceLimitNames()) choices.emplace_back(name);
  return choices;
}

// JobAcctGatherFrequency: "30", or "task=30,energy=60,network=0,filesystem=0".
Status ParseJobAcctGatherFrequency(std::string_view value, SlurmConf& c) {
  auto seconds = [](std::string_view text) -> std::optional<DurationSecs> {
    std::optional<uint64_t> n = ParseUint(Trim(text));
    if (!n || *n > 86400 * 365) return std::nullopt;
    return static_cast<DurationSecs>(*n);
  };
  if (std::optional<DurationSecs> bare = seconds(value)) {
    c.job_acct_gather_task_s = *bare;
    return Status::Ok();
  }
  for (std::string_view item : Split(value, ',')) {
    item = Trim(item);
    size_t eq = item.find('=');
    std::string kind = ToLower(item.substr(0, eq));
    if (eq == std::string_view::npos ||
        (kind != "task" && kind != "energy" && kind != "network" && kind != "filesystem")) {
      return InvalidArgument(
          fmt::format("names '{}', which is not task=, energy=, network= or filesystem=", item));
    }
    std::optional<DurationSecs> n = seconds(item.substr(eq + 1));
    if (!n) return InvalidArgument(fmt::format("has '{}', which is not in seconds", item));
    if (kind == "task") c.job_acct_gather_task_s = *n;
  }
  return Status::Ok();
}

// Keys Rota reads with their typed destination. Keys of Slurm that Rota
// accepts but does not act on are in unenforced_keys.cc (a few of those are
// parsed here all the same, so that a bad value is still an error).
const KeyTable<SlurmConf>& GlobalKeys() {
  static const KeyTable<SlurmConf> table{
      {"ClusterName", StringField(&SlurmConf::cluster_name)},
      {"SlurmctldPort", PortField(&SlurmConf::slurmctld_port)},
      {"SlurmdPort", PortField(&SlurmConf::slurmd_port)},
      {"SlurmdSpoolDir", StringField(&SlurmConf::slurmd_spool_dir)},
      {"StateSaveLocation", StringField(&SlurmConf::state_save_location)},
      {"SlurmUser", StringField(&SlurmConf::slurm_user)},
      {"AuthType", ChoiceField(&SlurmConf::auth_type, {"auth/munge", "auth/slurm", "auth/none"})},
      {"GresTypes", ListField(&SlurmConf::gres_types)},
      {"SelectType", ChoiceField(&SlurmConf::select_type,
                                 {"select/cons_tres", "select/cons_res", "select/linear"})},
      {"SelectTypeParameters",
       ChoiceListField(&SlurmConf::select_type_parameters,
                       {"CR_CPU", "CR_CPU_Memory", "CR_Core", "CR_Core_Memory", "CR_Socket",
                        "CR_Socket_Memory", "CR_Memory", "CR_ONE_TASK_PER_CORE", "CR_Pack_Nodes",
                        "CR_CORE_DEFAULT_DIST_BLOCK", "CR_LLN"})},
      {"SchedulerType",
       ChoiceField(&SlurmConf::scheduler_type, {"sched/backfill", "sched/builtin"})},
      {"PriorityType",
       ChoiceField(&SlurmConf::priority_type, {"priority/multifactor", "priority/basic"})},
      {"PriorityDecayHalfLife", TimeField(&SlurmConf::priority_decay_half_life)},
      {"PriorityMaxAge", TimeField(&SlurmConf::priority_max_age)},
      {"PriorityCalcPeriod", TimeField(&SlurmConf::priority_calc_period)},
      {"PriorityFavorSmall", BoolField(&SlurmConf::priority_favor_small)},
      {"TrackWCKey", BoolField(&SlurmConf::track_wckey)},
      {"PriorityFlags", ListField(&SlurmConf::priority_flags)},
      {"PriorityWeightAge",
       [](SlurmConf& c, std::string_view v) {
         return ParseUint32Value(v, c.priority_weights.age);
       }},
      {"PriorityWeightAssoc",
       [](SlurmConf& c, std::string_view v) {
         return ParseUint32Value(v, c.priority_weights.assoc);
       }},
      {"PriorityWeightFairshare",
       [](SlurmConf& c, std::string_view v) {
         return ParseUint32Value(v, c.priority_weights.fairshare);
       }},
      {"PriorityWeightJobSize",
       [](SlurmConf& c, std::string_view v) {
         return ParseUint32Value(v, c.priority_weights.job_size);
       }},
      {"PriorityWeightPartition",
       [](SlurmConf& c, std::string_view v) {
         return ParseUint32Value(v, c.priority_weights.partition);
       }},
      {"PriorityWeightQOS",
       [](SlurmConf& c, std::string_view v) {
         return ParseUint32Value(v, c.priority_weights.qos);
       }},
      {"PriorityWeightTRES",
       [](SlurmConf& c, std::string_view v) {
         return ParseTresWeightsValue(v, c.priority_weights.tres);
       }},
      {"AccountingStorageType",
       ChoiceField(&SlurmConf::accounting_storage_type,
                   {"accounting_storage/slurmdbd", "accounting_storage/none"})},
      {"AccountingStorageHost", StringField(&SlurmConf::accounting_storage_host)},
      {"AccountingStoragePort", PortField(&SlurmConf::accounting_storage_port)},
      {"AccountingStorageTRES", ListField(&SlurmConf::accounting_storage_tres)},
      {"AccountingStorageEnforce", ChoiceListField(&SlurmConf::accounting_storage_enforce,
                                                   {"associations", "limits", "nojobs", "nosteps",
                                                    "qos", "safe", "wckeys", "all"})},
      {"AccountingStoreFlags", ChoiceListField(&SlurmConf::accounting_store_flags,
                                               {"job_comment", "job_env", "job_script"})},
      {"PreemptType", ChoiceField(&SlurmConf::preempt_type,
                                  {"preempt/none", "preempt/partition_prio", "preempt/qos"})},
      {"PreemptMode", ChoiceListField(&SlurmConf::preempt_mode,
                                      {"OFF", "CANCEL", "GANG", "REQUEUE", "SUSPEND", "WITHIN"})},
      {"PreemptExemptTime", TimeField(&SlurmConf::preempt_exempt_time)},
      {"SchedulerTimeSlice", SecondsField(&SlurmConf::scheduler_time_slice)},
      {"JobAcctGatherType",
       ChoiceField(&SlurmConf::job_acct_gather_type,
                   {"jobacct_gather/none", "jobacct_gather/linux", "jobacct_gather/cgroup"})},
      {"ProctrackType", ChoiceField(&SlurmConf::proctrack_type,
                                    {"proctrack/cgroup", "proctrack/linuxproc", "proctrack/pgid"})},
      {"TaskPlugin",
       ChoiceListField(&SlurmConf::task_plugins, {"task/cgroup", "task/affinity", "task/none"})},
      {"PrologFlags", ChoiceListField(&SlurmConf::prolog_flags,
                                      {"Alloc", "Contain", "DeferBatch", "NoHold",
                                       "ForceRequeueOnFail", "RunInJob", "Serial", "X11"})},
      {"MpiDefault", StringField(&SlurmConf::mpi_default)},
      {"Prolog", StringField(&SlurmConf::prolog)},
      {"Epilog", StringField(&SlurmConf::epilog)},
      {"TaskProlog", StringField(&SlurmConf::task_prolog)},
      {"MailProg", StringField(&SlurmConf::mail_prog)},
      {"EpilogSlurmctld", StringField(&SlurmConf::epilog_slurmctld)},
      {"PrologSlurmctld", StringField(&SlurmConf::prolog_slurmctld)},
      {"PrivateData",
       ChoiceListField(&SlurmConf::private_data, {"accounts", "cloud", "events", "jobs", "nodes",
                                                  "partitions", "reservations", "usage", "users"})},
      {"TaskEpilog", StringField(&SlurmConf::task_epilog)},
      {"PropagateResourceLimits",
       [](SlurmConf& c, std::string_view v) {
         if (!c.propagate_resource_limits_except.empty()) {
           return InvalidArgument("cannot be used with PropagateResourceLimitsExcept");
         }
         return ParseChoiceListValue(v, ResourceLimitChoices(/*all_or_none=*/true),
                                     c.propagate_resource_limits);
       }},
      {"PropagateResourceLimitsExcept",
       [](SlurmConf& c, std::string_view v) {
         if (!c.propagate_resource_limits.empty()) {
           return InvalidArgument("cannot be used with PropagateResourceLimits");
         }
         return ParseChoiceListValue(v, ResourceLimitChoices(/*all_or_none=*/false),
                                     c.propagate_resource_limits_except);
       }},
      {"JobAcctGatherFrequency",
       [](SlurmConf& c, std::string_view v) { return ParseJobAcctGatherFrequency(v, c); }},
      {"HealthCheckProgram", StringField(&SlurmConf::health_check_program)},
      {"HealthCheckInterval", SecondsField(&SlurmConf::health_check_interval)},
      {"HealthCheckNodeState",
       ChoiceListField(&SlurmConf::health_check_node_state,
                       {"ALLOC", "ANY", "CYCLE", "IDLE", "MIXED", "NONDRAINED_IDLE"})},
      {"TopologyPlugin", ChoiceField(&SlurmConf::topology_plugin,
                                     {"topology/tree", "topology/none", "topology/default"})},
      {"BatchStartTimeout", SecondsField(&SlurmConf::batch_start_timeout)},
      {"KillWait", SecondsField(&SlurmConf::kill_wait)},
      {"MinJobAge", SecondsField(&SlurmConf::min_job_age)},
      {"MaxJobCount", Uint32Field(&SlurmConf::max_job_count)},
      {"MaxArraySize", Uint32Field(&SlurmConf::max_array_size)},
      {"SlurmdTimeout", SecondsField(&SlurmConf::slurmd_timeout)},
      {"SlurmctldTimeout", SecondsField(&SlurmConf::slurmctld_timeout)},
      {"ReturnToService",
       [](SlurmConf& c, std::string_view v) {
         Status s = ParseUint32Value(v, c.return_to_service);
         if (s.ok() && c.return_to_service > 2) return InvalidArgument("is not 0, 1 or 2");
         return s;
       }},
      {"SlurmdParameters", ListField(&SlurmConf::slurmd_parameters)},
      {"FirstJobId", Uint32Field(&SlurmConf::first_job_id)},
      {"DefMemPerCPU",
       [](SlurmConf& c, std::string_view v) {
         MemoryMb mb = 0;
         Status s = ParseMemoryValue(v, mb);
         if (s.ok()) c.def_mem_per_cpu = mb;
         return s;
       }},
      {"DefCpuPerGPU", OptionalUint32Field(&SlurmConf::def_cpu_per_gpu)},
      {"DefMemPerGPU", OptionalMemoryField(&SlurmConf::def_mem_per_gpu)},
      {"MaxMemPerCPU", OptionalMemoryField(&SlurmConf::max_mem_per_cpu)},
      {"EnforcePartLimits",
       [](SlurmConf& c, std::string_view v) {
         Status s = ParseChoiceValue(v, {"NO", "ANY", "ALL", "YES"}, c.enforce_part_limits);
         // YES is the older spelling of ANY.
         if (c.enforce_part_limits == "YES") c.enforce_part_limits = "ANY";
         return s;
       }},
      {"OverTimeLimit", TimeField(&SlurmConf::over_time_limit)},
      {"JobRequeue",
       [](SlurmConf& c, std::string_view v) {
         uint32_t n = 0;
         Status s = ParseUint32Value(v, n);
         if (s.ok() && n > 1) return InvalidArgument("is not 0 or 1");
         c.job_requeue = n == 1;
         return s;
       }},
      {"Licenses",
       [](SlurmConf& c, std::string_view v) {
         Result<LicenseCounts> licenses = ParseLicenseList(v);
         if (!licenses.ok()) return licenses.status();
         c.licenses = std::move(licenses).value();
         return Status::Ok();
       }},
      {"PriorityUsageResetPeriod",
       ChoiceField(&SlurmConf::priority_usage_reset_period,
                   {"NONE", "NOW", "DAILY", "WEEKLY", "MONTHLY", "QUARTERLY", "YEARLY"})},
  };
  return table;
}

// Keys other parts of Rota read from SlurmConf::raw rather than from a typed
// field. The keys Rota accepts without acting on them are in
// unenforced_keys.cc.
constexpr std::string_view kRawKeys[] = {
    "AuthInfo",           // api/auth_settings.cc: socket=
    "AuthAltTypes",       // api/auth_settings.cc: auth/jwt
    "AuthAltParameters",  // api/auth_settings.cc: jwt_key=
};

std::string_view CanonicalAcceptedKey(std::string_view key) {
  std::string_view unenforced = UnenforcedKey(KeyPlace::kSlurmConf, key);
  if (!unenforced.empty()) return unenforced;
  for (std::string_view k : kRawKeys) {
    if (EqualsIgnoreCase(k, key)) return k;
  }
  return {};
}

void ParseSchedulerParameters(std::string_view value, const SourceLocation& where,
                              SchedulerParameters& p, Diagnostics& diags);

// SlurmctldHost=name or SlurmctldHost=name(address); the first is primary.
void AddController(std::string_view value, const SourceLocation& where, SlurmConf& settings,
                   Diagnostics& diags) {
  std::string_view name = value;
  std::string_view address;
  size_t open = value.find('(');
  if (open != std::string_view::npos) {
    if (value.back() != ')' || open == 0) {
      diags.Error(where, fmt::format("SlurmctldHost={} is not name or name(address)", value));
      return;
    }
    name = value.substr(0, open);
    address = value.substr(open + 1, value.size() - open - 2);
  }
  if (name.empty()) {
    diags.Error(where, "SlurmctldHost= names no host");
    return;
  }
  settings.controllers.push_back({std::string(name), std::string(address)});
}

// NodeName=DEFAULT / PartitionName=DEFAULT lines.
void WarnUnenforcedDefaults(KeyPlace place, const ConfigLine& line, Diagnostics& diags) {
  for (size_t i = 1; i < line.pairs.size(); ++i) {
    WarnIfUnenforced(place, line.pairs[i].key, line.pairs[i].value, line.where, diags);
  }
}

bool ApplySpecialGlobal(const KeyValue& kv, const SourceLocation& where, SlurmConf& settings,
                        Diagnostics& diags) {
  if (EqualsIgnoreCase(kv.key, "SlurmctldHost") || EqualsIgnoreCase(kv.key, "ControlMachine") ||
      EqualsIgnoreCase(kv.key, "BackupController")) {
    AddController(kv.value, where, settings, diags);
    return true;
  }
  if (EqualsIgnoreCase(kv.key, "ControlAddr") || EqualsIgnoreCase(kv.key, "BackupAddr")) {
    size_t index = EqualsIgnoreCase(kv.key, "ControlAddr") ? 0 : 1;
    if (settings.controllers.size() <= index) {
      diags.Error(where, fmt::format("{} given before the host it belongs to", kv.key));
    } else {
      settings.controllers[index].address = kv.value;
    }
    return true;
  }
  if (EqualsIgnoreCase(kv.key, "SchedulerParameters")) {
    ParseSchedulerParameters(kv.value, where, settings.scheduler, diags);
    return true;
  }
  if (EqualsIgnoreCase(kv.key, "SlurmctldParameters")) {
    settings.slurmctld_parameters = SplitCommaList(kv.value);
    settings.enable_configless = false;
    for (const std::string& item : settings.slurmctld_parameters) {
      if (EqualsIgnoreCase(item, "enable_configless")) {
        settings.enable_configless = true;
      } else {
        diags.Warning(
            where, fmt::format("SlurmctldParameters: {} is accepted, has no effect in Rota", item));
      }
    }
    return true;
  }
  return false;
}

}  // namespace

void ApplyGlobalPair(const KeyValue& kv, const SourceLocation& where, SlurmConf& settings,
                     Diagnostics& diags) {
  std::string canonical;
  if (const auto* h = GlobalKeys().Find(kv.key)) {
    canonical = std::string(h->name);
    GlobalKeys().Apply(kv, settings, where, diags);
  } else if (ApplySpecialGlobal(kv, where, settings, diags)) {
    canonical = kv.key;
  } else if (std::string_view k = CanonicalAcceptedKey(kv.key); !k.empty()) {
    canonical = std::string(k);
  } else if (IsPartitionLineKey(kv.key)) {
    // A partition's or a node's key written among the global ones (Slurm
    // takes TRESBillingWeights, MaxTime, RealMemory ... only on those lines).
    diags.Warning(where, fmt::format("{} belongs on a PartitionName line (PartitionName=DEFAULT "
                                     "for every partition); ignored here",
                                     kv.key));
    return;
  } else if (IsNodeLineKey(kv.key)) {
    diags.Warning(where, fmt::format("{} belongs on a NodeName line (NodeName=DEFAULT for every "
                                     "node); ignored here",
                                     kv.key));
    return;
  } else {
    diags.Warning(where, fmt::format("unknown key {} (ignored)", kv.key));
    return;
  }
  WarnIfUnenforced(KeyPlace::kSlurmConf, canonical, kv.value, where, diags);
  settings.raw[canonical] = kv.value;
}

void ParseSlurmConf(const std::vector<ConfigLine>& lines, ClusterConfig& config,
                    Diagnostics& diags) {
  std::vector<KeyValue> node_defaults;
  std::vector<KeyValue> partition_defaults;
  for (const ConfigLine& line : lines) {
    const KeyValue& first = line.pairs.front();
    if (EqualsIgnoreCase(first.key, "NodeName")) {
      if (EqualsIgnoreCase(first.value, "DEFAULT")) {
        // Told here, once, rather than on every line the default reaches.
        WarnUnenforcedDefaults(KeyPlace::kNodeLine, line, diags);
        node_defaults.insert(node_defaults.end(), line.pairs.begin() + 1, line.pairs.end());
      } else {
        ParseNodeLine(line, node_defaults, config, diags);
      }
    } else if (EqualsIgnoreCase(first.key, "PartitionName")) {
      if (EqualsIgnoreCase(first.value, "DEFAULT")) {
        WarnUnenforcedDefaults(KeyPlace::kPartitionLine, line, diags);
        partition_defaults.insert(partition_defaults.end(), line.pairs.begin() + 1,
                                  line.pairs.end());
      } else {
        ParsePartitionLine(line, partition_defaults, config, diags);
      }
    } else if (EqualsIgnoreCase(first.key, "NodeSet") || EqualsIgnoreCase(first.key, "DownNodes") ||
               EqualsIgnoreCase(first.key, "FrontendName")) {
      diags.Warning(line.where, fmt::format("{} lines are not supported yet (ignored)", first.key));
    } else {
      for (const KeyValue& kv : line.pairs) ApplyGlobalPair(kv, line.where, config.settings, diags);
    }
  }
  ResolvePartitionNodes(config, diags);
  AssignSharedHostPorts(config);
}

namespace {

void ParseSchedulerParameters(std::string_view value, const SourceLocation& where,
                              SchedulerParameters& p, Diagnostics& diags) {
  bool busy_nodes = false;
  for (const std::string& item : ParseListValue(value)) {
    size_t eq = item.find('=');
    std::string key = ToLower(item.substr(0, eq));
    std::string_view v =
        eq == std::string::npos ? std::string_view() : std::string_view(item).substr(eq + 1);
    Status s;
    if (key == "bf_continue") {
      p.bf_continue = true;
    } else if (key == "bf_window") {
      uint32_t minutes = 0;
      s = ParseUint32Value(v, minutes);
      p.bf_window = static_cast<DurationSecs>(minutes) * 60;
    } else if (key == "bf_resolution") {
      s = ParseSecondsValue(v, p.bf_resolution);
    } else if (key == "bf_max_job_test") {
      s = ParseUint32Value(v, p.bf_max_job_test);
    } else if (key == "bf_max_job_part") {
      s = ParseUint32Value(v, p.bf_max_job_part);
    } else if (key == "bf_max_job_user") {
      s = ParseUint32Value(v, p.bf_max_job_user);
    } else if (key == "bf_interval") {
      s = ParseSecondsValue(v, p.bf_interval);
    } else if (key == "bf_min_age_reserve") {
      s = ParseSecondsValue(v, p.bf_min_age_reserve);
    } else if (key == "bf_min_prio_reserve") {
      s = ParseUint32Value(v, p.bf_min_prio_reserve);
    } else if (key == "bf_job_part_count_reserve") {
      s = ParseUint32Value(v, p.bf_job_part_count_reserve);
    } else if (key == "bf_max_time") {
      DurationSecs t = 0;
      s = ParseSecondsValue(v, t);
      p.bf_max_time = t;
    } else if (key == "max_array_tasks") {
      s = ParseUint32Value(v, p.max_array_tasks);
    } else if (key == "bf_max_job_start") {
      s = ParseUint32Value(v, p.bf_max_job_start);
    } else if (key == "bf_busy_nodes") {
      busy_nodes = true;  // What Rota's backfill does unless bf_reserve_in_node_order
    } else if (key == "bf_reserve_in_node_order") {
      p.bf_reserve_in_node_order = true;
    } else if (key == "preempt_youngest_first") {
      p.preempt_youngest_first = true;
    } else if (key == "nohold_on_prolog_fail") {
      p.nohold_on_prolog_fail = true;
    } else if (key == "rota_predict_runtime") {
      p.rota_predict_runtime = true;
    } else if (key == "kill_invalid_depend") {
      p.kill_invalid_depend = true;
    } else if (key == "default_queue_depth") {
      s = ParseUint32Value(v, p.default_queue_depth);
    } else if (key == "partition_job_depth") {
      s = ParseUint32Value(v, p.partition_job_depth);
    } else if (key == "sched_interval") {
      s = ParseSecondsValue(v, p.sched_interval);
    } else if (key == "sched_min_interval") {
      DurationSecs us = 0;
      s = ParseSecondsValue(v, us);
      p.sched_min_interval_us = us;
    } else if (key == "sched_max_job_start") {
      s = ParseUint32Value(v, p.sched_max_job_start);
    } else if (key == "max_script_size") {
      uint32_t bytes = 0;
      s = ParseUint32Value(v, bytes);
      p.max_script_size = bytes;
    } else {
      if (!WarnIfUnenforced(KeyPlace::kSchedulerParameters, key, "", where, diags)) {
        diags.Warning(where, fmt::format("SchedulerParameters: unknown option {} (ignored)", item));
      }
      continue;
    }
    if (!s.ok()) {
      diags.Error(where, fmt::format("SchedulerParameters: {} {}", item, s.message()));
    } else {
      // Parsed, so that a bad value is an error, yet not acted on
      // (default_queue_depth, sched_interval, ...): said so.
      WarnIfUnenforced(KeyPlace::kSchedulerParameters, key, "", where, diags);
    }
  }
  if (busy_nodes && p.bf_reserve_in_node_order) {
    diags.Warning(where,
                  "SchedulerParameters: bf_busy_nodes and bf_reserve_in_node_order contradict "
                  "each other; reservations follow the plain node order");
  }
}

}  // namespace
}  // namespace rota::conf
