// PartitionName lines of slurm.conf.
#include <fmt/format.h>

#include "common/hostlist.h"
#include "common/strings.h"
#include "conf/key_table.h"
#include "conf/slurm_conf_parser.h"
#include "conf/unenforced_keys.h"

namespace rota::conf {
namespace {

// "ALL" (any case) means everyone, which Rota stores as an empty list.
auto AccessList(std::vector<std::string> PartitionConfig::*field) {
  return [field](PartitionConfig& p, std::string_view v) {
    p.*field = EqualsIgnoreCase(v, "ALL") ? std::vector<std::string>{} : ParseListValue(v);
    return Status::Ok();
  };
}

Status ParseCountOrUnlimited(std::string_view v, uint32_t& out) {
  if (EqualsIgnoreCase(v, "UNLIMITED") || EqualsIgnoreCase(v, "INFINITE")) {
    out = kUnlimitedCount;
    return Status::Ok();
  }
  return ParseUint32Value(v, out);
}

Status ParseOverSubscribe(std::string_view v, std::string& out) {
  // EXCLUSIVE, FORCE[:N], YES[:N], NO
  std::string_view base = v.substr(0, v.find(':'));
  std::string chosen;
  ROTA_RETURN_IF_ERROR(ParseChoiceValue(base, {"EXCLUSIVE", "FORCE", "YES", "NO"}, chosen));
  if (base.size() != v.size() && !ParseUint(v.substr(base.size() + 1))) {
    return InvalidArgument("is not EXCLUSIVE, FORCE[:N], YES[:N] or NO");
  }
  out = ToUpper(v);
  return Status::Ok();
}

const KeyTable<PartitionConfig>& PartitionKeys() {
  using P = PartitionConfig;
  static const KeyTable<P> table{
      {"Nodes", StringField(&P::nodes_expr)},
      {"Default", BoolField(&P::is_default)},
      {"MaxTime", TimeField(&P::max_time)},
      {"DefaultTime",
       [](P& p, std::string_view v) {
         DurationSecs t = 0;
         Status s = ParseTimeValue(v, t);
         if (s.ok()) p.default_time = t;
         return s;
       }},
      {"PriorityTier", Uint32Field(&P::priority_tier)},
      {"PriorityJobFactor", Uint32Field(&P::priority_job_factor)},
      {"PreemptMode",
       [](P& p, std::string_view v) {
         std::vector<std::string> modes;
         Status s = ParseChoiceListValue(
             v, {"OFF", "CANCEL", "GANG", "REQUEUE", "SUSPEND", "WITHIN"}, modes);
         if (s.ok()) p.preempt_mode = Join(modes, ",");
         return s;
       }},
      {"GraceTime", SecondsField(&P::grace_time)},
      {"QOS", StringField(&P::qos)},
      {"TRESBillingWeights",
       [](P& p, std::string_view v) { return ParseTresWeightsValue(v, p.billing_weights); }},
      {"AllowAccounts", AccessList(&P::allow_accounts)},
      {"DenyAccounts", AccessList(&P::deny_accounts)},
      {"AllowGroups", AccessList(&P::allow_groups)},
      {"AllowQos", AccessList(&P::allow_qos)},
      {"DenyQos", AccessList(&P::deny_qos)},
      {"State", ChoiceField(&P::state, {"UP", "DOWN", "DRAIN", "INACTIVE"})},
      {"MaxNodes", [](P& p, std::string_view v) { return ParseCountOrUnlimited(v, p.max_nodes); }},
      {"MinNodes", Uint32Field(&P::min_nodes)},
      {"ExclusiveUser", BoolField(&P::exclusive_user)},
      {"OverSubscribe",
       [](P& p, std::string_view v) { return ParseOverSubscribe(v, p.oversubscribe); }},
      {"Shared", [](P& p, std::string_view v) { return ParseOverSubscribe(v, p.oversubscribe); }},
      {"Hidden", BoolField(&P::hidden)},
      {"DefMemPerCPU", OptionalMemoryField(&P::def_mem_per_cpu)},
      {"MaxMemPerNode", OptionalMemoryField(&P::max_mem_per_node)},
      {"DefCpuPerGPU", OptionalUint32Field(&P::def_cpu_per_gpu)},
      {"DefMemPerGPU", OptionalMemoryField(&P::def_mem_per_gpu)},
      {"MaxMemPerCPU", OptionalMemoryField(&P::max_mem_per_cpu)},
      {"MaxCPUsPerNode",
       [](P& p, std::string_view v) { return ParseCountOrUnlimited(v, p.max_cpus_per_node); }},
      {"OverTimeLimit", OptionalTimeField(&P::over_time_limit)},
      {"GpuIdlePolicy", [](P& p, std::string_view v) { return ParseGpuIdlePolicy(v, p.gpu_idle); }},
  };
  return table;
}

}  // namespace

void ParsePartitionLine(const ConfigLine& line, const std::vector<KeyValue>& defaults,
                        ClusterConfig& config, Diagnostics& diags) {
  PartitionConfig p;
  p.name = line.pairs.front().value;
  p.where = line.where;
  if (config.FindPartition(p.name) != nullptr) {
    diags.Error(line.where, fmt::format("partition {} is already defined at line {}", p.name,
                                        config.FindPartition(p.name)->where.line));
    return;
  }
  for (const KeyValue& kv : defaults) PartitionKeys().Apply(kv, p, line.where, diags);
  for (size_t i = 1; i < line.pairs.size(); ++i) {
    const KeyValue& kv = line.pairs[i];
    bool known = PartitionKeys().Apply(kv, p, line.where, diags);
    // Keys without effect (unenforced_keys.cc) are told apart from unknown ones.
    if (!WarnIfUnenforced(KeyPlace::kPartitionLine, kv.key, kv.value, line.where, diags) &&
        !known) {
      diags.Warning(line.where, fmt::format("unknown PartitionName key {} (ignored)", kv.key));
    }
  }
  if (p.default_time && p.max_time != kInfiniteDuration && *p.default_time > p.max_time) {
    diags.Error(line.where,
                fmt::format("partition {}: DefaultTime is longer than MaxTime", p.name));
  }
  if (p.is_default) {
    for (const PartitionConfig& other : config.partitions) {
      if (other.is_default) {
        diags.Warning(line.where, fmt::format("partition {} is also Default=YES (line {}); {} "
                                              "becomes the default",
                                              other.name, other.where.line, p.name));
      }
    }
  }
  config.partitions.push_back(std::move(p));
}

void ResolvePartitionNodes(ClusterConfig& config, Diagnostics& diags) {
  for (PartitionConfig& p : config.partitions) {
    p.nodes.clear();
    if (EqualsIgnoreCase(p.nodes_expr, "ALL")) {
      for (const NodeConfig& n : config.nodes) p.nodes.push_back(n.name);
      continue;
    }
    if (p.nodes_expr.empty()) continue;  // A partition without nodes is legal, if useless.
    Result<std::vector<std::string>> names = ExpandHostlist(p.nodes_expr);
    if (!names.ok()) {
      diags.Error(p.where, fmt::format("partition {}: Nodes={}: {}", p.name, p.nodes_expr,
                                       names.status().message()));
      continue;
    }
    std::vector<std::string> unknown;
    for (const std::string& name : *names) {
      if (config.node_index.count(name) == 0) {
        unknown.push_back(name);
      } else {
        p.nodes.push_back(name);
      }
    }
    if (!unknown.empty()) {
      diags.Error(p.where,
                  fmt::format("partition {} names {} {} that no NodeName line defines", p.name,
                              unknown.size() == 1 ? "node" : "nodes", CompressHostlist(unknown)));
    }
  }
}

bool IsPartitionLineKey(std::string_view key) { return PartitionKeys().Find(key) != nullptr; }

}  // namespace rota::conf
