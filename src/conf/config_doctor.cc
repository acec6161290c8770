#include "conf/config_doctor.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string_view>
#include <vector>

#include "common/duration.h"
#include "common/hostlist.h"
#include "common/strings.h"
#include "conf/config_reader.h"
#include "conf/preempt_mode.h"

namespace rota::conf {
namespace {

// Where each cluster-wide key of one file was last set. The parsed settings
// keep values, not lines, so the doctor reads the file again; problems in it
// were reported when the configuration was loaded.
class SettingLines {
 public:
  explicit SettingLines(const std::string& path) : path_(path) {
    Diagnostics ignored;
    for (const ConfigLine& line : ReadConfigFile(path, false, ignored)) {
      const std::string& first = line.pairs.front().key;
      // Node and partition lines have keys of their own (CpuBind, DefMemPerCPU).
      if (EqualsIgnoreCase(first, "NodeName") || EqualsIgnoreCase(first, "PartitionName") ||
          EqualsIgnoreCase(first, "NodeSet") || EqualsIgnoreCase(first, "DownNodes") ||
          EqualsIgnoreCase(first, "FrontendName")) {
        continue;
      }
      for (const KeyValue& kv : line.pairs) lines_[ToLower(kv.key)] = line.where;
    }
  }

  bool Has(std::string_view key) const { return lines_.count(ToLower(key)) > 0; }
  // The line that set `key`, else the file as a whole.
  SourceLocation Of(std::string_view key) const {
    auto it = lines_.find(ToLower(key));
    return it != lines_.end() ? it->second : SourceLocation{path_, 0};
  }
  // "line N" when `key` is written, else what Slurm assumes.
  std::string Where(std::string_view key) const {
    auto it = lines_.find(ToLower(key));
    return it != lines_.end() ? fmt::format("line {}", it->second.line) : "the default";
  }

 private:
  std::string path_;
  std::map<std::string, SourceLocation> lines_;
};

struct Patient {
  const ClusterConfig& config;
  SettingLines slurm_conf;
  SettingLines cgroup_conf;
  std::vector<std::string> gpu_nodes;  // Nodes whose Gres= has GPUs, in configuration order.

  bool IsGpuNode(const std::string& name) const {
    return std::find(gpu_nodes.begin(), gpu_nodes.end(), name) != gpu_nodes.end();
  }
  bool HasGpuNodes(const PartitionConfig& p) const {
    return std::any_of(p.nodes.begin(), p.nodes.end(),
                       [this](const std::string& n) { return IsGpuNode(n); });
  }
};

bool IsGpu(std::string_view tres) {
  return EqualsIgnoreCase(tres, "gres/gpu") || StartsWithIgnoreCase(tres, "gres/gpu:");
}

bool WeighsGpus(const TresWeights& weights) {
  return std::any_of(weights.begin(), weights.end(),
                     [](const auto& w) { return IsGpu(w.first) && w.second > 0; });
}

// TRESBillingWeights decide what fair-share and billing limits count.
void CheckGpuBilling(const Patient& p, Diagnostics& diags) {
  const bool multifactor = p.config.settings.priority_type == "priority/multifactor";
  for (const PartitionConfig& part : p.config.partitions) {
    if (!p.HasGpuNodes(part)) continue;
    if (part.billing_weights.empty()) {
      // Billing only feeds usage, which accrues under multifactor.
      if (!multifactor) continue;
      diags.Warning(part.where,
                    fmt::format("partition {} has GPU nodes but no TRESBillingWeights: jobs are "
                                "billed for their CPUs only, so fair-share ignores GPU use",
                                part.name));
    } else if (!WeighsGpus(part.billing_weights)) {
      diags.Warning(part.where,
                    fmt::format("partition {} has TRESBillingWeights without GRES/gpu: GPU use is "
                                "not billed, so fair-share ignores GPUs",
                                part.name));
    }
  }
}

void CheckGpuAccountingTres(const Patient& p, Diagnostics& diags) {
  const SlurmConf& s = p.config.settings;
  if (p.gpu_nodes.empty() || s.accounting_storage_type != "accounting_storage/slurmdbd") return;
  if (std::any_of(s.accounting_storage_tres.begin(), s.accounting_storage_tres.end(),
                  [](const std::string& t) { return EqualsIgnoreCase(t, "gres/gpu"); })) {
    return;
  }
  const char* key =
      p.slurm_conf.Has("AccountingStorageTRES") ? "AccountingStorageTRES" : "AccountingStorageType";
  diags.Warning(p.slurm_conf.Of(key),
                "AccountingStorageTRES does not list gres/gpu but nodes have GPUs: GPU use is not "
                "recorded, so sacct and sreport show none");
}

void CheckDeviceConstraint(const Patient& p, Diagnostics& diags) {
  if (p.gpu_nodes.empty() || p.config.cgroup.constrain_devices) return;
  std::string nodes = CompressHostlist(p.gpu_nodes, HostlistOrder::kAsGiven);
  diags.Warning(
      p.cgroup_conf.Of("ConstrainDevices"),
      fmt::format("{} while {} {} GPUs: a job can open every GPU of its node, not only its own "
                  "(CUDA_VISIBLE_DEVICES is only a hint), and take another job's GPU",
                  p.cgroup_conf.Has("ConstrainDevices") ? "ConstrainDevices=no"
                                                        : "ConstrainDevices is not set (no)",
                  nodes, p.gpu_nodes.size() == 1 ? "has" : "have"));
}

void CheckBackfillWindow(const Patient& p, Diagnostics& diags) {
  const SlurmConf& s = p.config.settings;
  if (s.scheduler_type != "sched/backfill") return;
  const PartitionConfig* longest = nullptr;
  for (const PartitionConfig& part : p.config.partitions) {
    // An unlimited MaxTime gives no length to plan for.
    if (part.max_time == kInfiniteDuration) continue;
    if (longest == nullptr || part.max_time > longest->max_time) longest = &part;
  }
  if (longest == nullptr || longest->max_time <= s.scheduler.bf_window) return;
  diags.Warning(
      p.slurm_conf.Of("SchedulerParameters"),
      fmt::format("bf_window is {} ({}) but partition {} (line {}) allows jobs of {}: backfill "
                  "plans only bf_window ahead, so a job that must wait for nodes freed later "
                  "gets no reservation and smaller jobs can keep starting ahead of it",
                  FormatDurationScontrol(s.scheduler.bf_window),
                  p.slurm_conf.Has("SchedulerParameters") ? "SchedulerParameters" : "the default",
                  longest->name, longest->where.line, FormatDurationScontrol(longest->max_time)));
}

// Runtime predictions (Rota's own) plan holes by users' recent runs; a job
// predicted short overruns its hole, and a job wanting most of a partition,
// which waits for the latest of many ends, pays for it. No priority setting
// tried took that away (docs/simulator.md), so the cost is said whenever the
// planner uses them.
void CheckRuntimePredictions(const Patient& p, Diagnostics& diags) {
  const SlurmConf& s = p.config.settings;
  if (!s.scheduler.rota_predict_runtime || s.scheduler_type != "sched/backfill") return;
  diags.Warning(p.slurm_conf.Of("SchedulerParameters"),
                "rota_predict_runtime plans backfill with users' recent runtimes, and jobs "
                "predicted short overrun the holes they start in, so jobs that need most of a "
                "partition wait longer: in a replay of KTH-SP2 the mean bounded slowdown fell "
                "by 31%, but jobs of 65 or more of 100 CPUs waited 46% longer (54% longer with "
                "a job-size priority favouring them)");
}

// The controller pairs GPUs with cores by gres.conf Cores=; rotad binds
// tasks by the affinity NVML reports. Only rotad can compare the two.
void CheckCoresUnderAutoDetect(const Patient& p, Diagnostics& diags) {
  std::map<std::pair<std::string, int>, std::vector<std::string>> nodes_by_line;
  std::vector<SourceLocation> order;
  for (const NodeConfig& n : p.config.nodes) {
    if (!EqualsIgnoreCase(p.config.gres.AutoDetectFor(n.name), "nvml")) continue;
    const std::vector<GresDevice>* devices = p.config.gres.DevicesOf(n.name);
    if (devices == nullptr) continue;
    for (const GresDevice& d : *devices) {
      if (d.cores.empty() || !EqualsIgnoreCase(d.name, "gpu")) continue;
      std::vector<std::string>& nodes = nodes_by_line[{d.where.file, d.where.line}];
      if (nodes.empty()) order.push_back(d.where);
      if (nodes.empty() || nodes.back() != n.name) nodes.push_back(n.name);
    }
  }
  for (const SourceLocation& where : order) {
    const std::vector<std::string>& nodes = nodes_by_line.at({where.file, where.line});
    diags.Warning(
        where,
        fmt::format("Cores= on {} with AutoDetect=nvml: the controller pairs GPUs with cores by "
                    "Cores=, rotad binds tasks by the affinity NVML finds; where they differ, "
                    "jobs get cores on another socket than their GPUs. Only rotad can compare "
                    "them, and it does not yet: check with nvidia-smi topo -m",
                    CompressHostlist(nodes, HostlistOrder::kAsGiven)));
  }
}

void CheckPriorityTresWeights(const Patient& p, Diagnostics& diags) {
  const SlurmConf& s = p.config.settings;
  const TresWeights& weights = s.priority_weights.tres;
  if (p.gpu_nodes.empty() || s.priority_type != "priority/multifactor" || weights.empty() ||
      WeighsGpus(weights)) {
    return;
  }
  diags.Warning(p.slurm_conf.Of("PriorityWeightTRES"),
                "PriorityWeightTRES has no GRES/gpu weight but nodes have GPUs: the GPUs a job "
                "asks for add nothing to its priority");
}

void CheckPreemptType(const Patient& p, Diagnostics& diags) {
  const SlurmConf& s = p.config.settings;
  if (s.preempt_type != "preempt/none") return;
  const std::string type_at = p.slurm_conf.Where("PreemptType");
  if (ClusterPreemptAction(p.config) != PreemptAction::kOff) {
    diags.Warning(p.slurm_conf.Of("PreemptMode"),
                  fmt::format("PreemptMode={} but PreemptType is preempt/none ({}): no job is "
                              "ever preempted; set PreemptType=preempt/partition_prio or "
                              "preempt/qos",
                              Join(s.preempt_mode, ","), type_at));
  }
  for (const PartitionConfig& part : p.config.partitions) {
    if (part.preempt_mode.empty() || ParsePreemptAction(part.preempt_mode) == PreemptAction::kOff) {
      continue;
    }
    diags.Warning(part.where,
                  fmt::format("partition {} has PreemptMode={} but PreemptType is preempt/none "
                              "({}): its jobs are never preempted, so jobs of higher "
                              "PriorityTier wait for them to end",
                              part.name, part.preempt_mode, type_at));
  }
}

void CheckSelectType(const Patient& p, Diagnostics& diags) {
  const SlurmConf& s = p.config.settings;
  if (s.select_type == "select/cons_tres") return;
  bool gpu_options = !p.gpu_nodes.empty() || s.def_cpu_per_gpu || s.def_mem_per_gpu;
  for (const PartitionConfig& part : p.config.partitions) {
    gpu_options |= part.def_cpu_per_gpu.has_value() || part.def_mem_per_gpu.has_value();
  }
  if (!gpu_options) return;
  diags.Warning(p.slurm_conf.Of("SelectType"),
                fmt::format("SelectType={} with GPU nodes or GPU defaults: Rota always schedules "
                            "as select/cons_tres, while Slurm needs select/cons_tres for --gpus, "
                            "--gpus-per-task, --cpus-per-gpu, --mem-per-gpu, DefCpuPerGPU and "
                            "DefMemPerGPU; the same file behaves differently under Slurm",
                            s.select_type));
}

void CheckDefaultMemory(const Patient& p, Diagnostics& diags) {
  const SlurmConf& s = p.config.settings;
  std::string memory_param;
  for (const std::string& param : s.select_type_parameters) {
    if (param.find("Memory") != std::string::npos) memory_param = param;
  }
  if (memory_param.empty() || s.def_mem_per_cpu) return;
  std::vector<std::string> without;
  for (const PartitionConfig& part : p.config.partitions) {
    if (!part.def_mem_per_cpu) without.push_back(part.name);
  }
  if (without.empty()) return;
  std::string which = without.size() == p.config.partitions.size()
                          ? std::string()
                          : fmt::format(" (partitions {})", Join(without, ","));
  diags.Warning(
      p.slurm_conf.Of("SelectTypeParameters"),
      fmt::format("SelectTypeParameters={} makes memory consumable but DefMemPerCPU is not "
                  "set{}: a job without --mem, --mem-per-cpu or --mem-per-gpu is given all the "
                  "memory of its nodes, so it runs alone there and their other CPUs and GPUs idle",
                  memory_param, which));
}

struct Trap {
  std::string_view name;  // What the site falls into, for readers of this table.
  void (*check)(const Patient&, Diagnostics&);
};

// In the order the findings are printed.
constexpr Trap kTraps[] = {
    {"GPU use not billed (TRESBillingWeights)", CheckGpuBilling},
    {"GPU use not recorded (AccountingStorageTRES)", CheckGpuAccountingTres},
    {"GPUs open to every job (ConstrainDevices)", CheckDeviceConstraint},
    {"big jobs starved by backfill (bf_window)", CheckBackfillWindow},
    {"wide jobs delayed by runtime predictions (rota_predict_runtime)", CheckRuntimePredictions},
    {"GPU affinity unchecked (Cores= with AutoDetect)", CheckCoresUnderAutoDetect},
    {"GPUs add no priority (PriorityWeightTRES)", CheckPriorityTresWeights},
    {"preemption that never happens (PreemptType)", CheckPreemptType},
    {"SelectType other than cons_tres", CheckSelectType},
    {"jobs take whole nodes' memory (DefMemPerCPU)", CheckDefaultMemory},
};

std::vector<std::string> GpuNodes(const ClusterConfig& config) {
  std::vector<std::string> out;
  for (const NodeConfig& n : config.nodes) {
    if (std::any_of(n.gres.begin(), n.gres.end(), [](const GresSpec& g) {
          return EqualsIgnoreCase(g.name, "gpu") && g.count > 0;
        })) {
      out.push_back(n.name);
    }
  }
  return out;
}

}  // namespace

void DiagnoseTraps(const ClusterConfig& config, Diagnostics& diags) {
  std::filesystem::path dir = std::filesystem::path(config.slurm_conf_path).parent_path();
  Patient patient{config, SettingLines(config.slurm_conf_path),
                  SettingLines((dir / "cgroup.conf").string()), GpuNodes(config)};
  for (const Trap& trap : kTraps) trap.check(patient, diags);
}

}  // namespace rota::conf
