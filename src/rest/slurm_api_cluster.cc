// GET /slurm/v0.0.38/nodes, /node/{name}, /partitions, /partition/{name},
// /reservations, /reservation/{name}: rotactld's nodes and reservations and
// slurm.conf's partitions, in slurmrestd's v0.0.38 shapes.
#include <fmt/format.h>

#include "api/methods.h"
#include "cli/slurm_version.h"
#include "common/gres_spec.h"
#include "common/hostlist.h"
#include "common/strings.h"
#include "reservation.pb.h"
#include "rest/slurm_api.h"

namespace rota::rest {
namespace {

constexpr ApiFlavor kFlavor = ApiFlavor::kSlurm;

std::string Param(const PathParams& params, const std::string& name) {
  auto it = params.find(name);
  return it == params.end() ? "" : it->second;
}

// GPUs in a node's GRES ("gpu:a100:2(S:0),gpu:t4:1(IDX:0)"), bindings aside.
uint64_t GpusIn(std::string_view gres) {
  uint64_t count = 0;
  for (std::string_view item : SplitOutside(gres, ',', '(', ')')) {
    auto spec = ParseGresSpec(item.substr(0, item.find('(')));
    if (spec.ok() && spec->name == "gpu") count += spec->count;
  }
  return count;
}

std::string Tres(uint64_t cpus, uint64_t mem_mb, uint64_t nodes, uint64_t gpus) {
  std::string out = fmt::format("cpu={},mem={}M", cpus, mem_mb);
  if (nodes > 0) out += fmt::format(",node={}", nodes);
  out += fmt::format(",billing={}", cpus);
  if (gpus > 0) out += fmt::format(",gres/gpu={}", gpus);
  return out;
}

Result<wire::ListNodesResponse> ListNodes(Backend& backend) {
  return ParseAnswer<wire::ListNodesResponse>(
      backend.CallController(api::kListNodes, wire::Empty()));
}

template <typename Repeated>
std::string JoinAll(const Repeated& items) {
  return Join(std::vector<std::string>(items.begin(), items.end()), ",");
}

}  // namespace

bool NodeState::Has(std::string_view flag) const {
  return std::find(flags.begin(), flags.end(), flag) != flags.end();
}

NodeState NodeStateOf(const wire::NodeInfo& n) {
  const wire::NodeRecord& r = n.record();
  // "MIXED+DRAIN*": the base state in lower case, the flags as a list; the
  // markers (* not responding, ~ powered off, # powering up) are cut.
  std::string state = r.state();
  const size_t mark = state.find_first_of("*~#");
  if (mark != std::string::npos) state = state.substr(0, mark);
  std::vector<std::string_view> parts = Split(state, '+');
  NodeState out;
  out.base = parts.empty() ? "unknown" : ToLower(parts[0]);
  if (out.base == "drain" || out.base == "drained" || out.base == "draining") {
    out.base = n.alloc_cpus() ? "mixed" : "idle";
  }
  for (size_t i = 1; i < parts.size(); ++i) out.flags.emplace_back(parts[i]);
  if (r.drain() && !out.Has("DRAIN")) out.flags.push_back("DRAIN");
  if (r.not_responding() && !out.Has("NOT_RESPONDING")) out.flags.push_back("NOT_RESPONDING");
  return out;
}

Json NodeJson(const wire::NodeInfo& n) {
  const wire::NodeRecord& r = n.record();
  const NodeState state = NodeStateOf(n);
  Json node;
  node["name"] = r.name();
  node["hostname"] = n.hostname().empty() ? r.name() : n.hostname();
  node["address"] = n.address().empty() ? r.name() : n.address();
  node["port"] = n.port();
  node["state"] = state.base;
  node["state_flags"] = state.flags;
  node["reason"] = r.reason();
  node["reason_changed_at"] = r.reason_time();
  node["reason_set_by_user"] = r.reason().empty() ? "" : std::to_string(r.reason_uid());
  node["cpus"] = n.cpus();
  node["boards"] = n.boards();
  node["sockets"] = n.sockets();
  node["cores"] = n.cores_per_socket();
  node["threads"] = n.threads_per_core();
  node["real_memory"] = n.real_memory_mb();
  node["alloc_cpus"] = n.alloc_cpus();
  node["idle_cpus"] = n.cpus() > n.alloc_cpus() ? n.cpus() - n.alloc_cpus() : 0;
  node["alloc_memory"] = n.alloc_mem_mb();
  node["gres"] = n.gres();
  node["gres_used"] = n.gres_used();
  node["gres_drained"] = "N/A";
  const std::string features = JoinAll(n.features());
  node["features"] = features;
  node["active_features"] = features;
  node["partitions"] = Json(std::vector<std::string>(n.partitions().begin(), n.partitions().end()));
  node["weight"] = n.weight();
  node["boot_time"] = n.boot_time();
  node["slurmd_start_time"] = n.slurmd_start_time();
  node["tres"] = Tres(n.cpus(), n.real_memory_mb(), 0, GpusIn(n.gres()));
  node["tres_used"] = Tres(n.alloc_cpus(), n.alloc_mem_mb(), 0, GpusIn(n.gres_used()));
  node["slurmd_version"] = std::string(cli::kSlurmVersion);
  return node;
}

HttpResponse GetNodes(const HttpRequest&, const PathParams& params, Backend& backend) {
  const std::string wanted = Param(params, "node_name");
  auto nodes = ListNodes(backend);
  if (!nodes.ok()) return StatusAnswer(kFlavor, nodes.status());
  Json list = Json::array();
  for (const wire::NodeInfo& n : nodes->nodes()) {
    if (!wanted.empty() && n.record().name() != wanted) continue;
    list.push_back(NodeJson(n));
  }
  if (!wanted.empty() && list.empty()) {
    return ErrorAnswer(kFlavor, 404, "Invalid node name specified: " + wanted,
                       kEslurmInvalidNodeName);
  }
  Json out = Envelope(kFlavor);
  out["nodes"] = std::move(list);
  return JsonAnswer(out);
}

HttpResponse GetPartitions(const HttpRequest&, const PathParams& params, Backend& backend) {
  const std::string wanted = Param(params, "partition_name");
  const conf::ClusterConfig& config = backend.config();
  auto nodes = ListNodes(backend);
  if (!nodes.ok()) return StatusAnswer(kFlavor, nodes.status());
  std::map<std::string, const wire::NodeInfo*> by_name;
  for (const wire::NodeInfo& n : nodes->nodes()) by_name[n.record().name()] = &n;
  Json list = Json::array();
  for (const conf::PartitionConfig& p : config.partitions) {
    if (!wanted.empty() && p.name != wanted) continue;
    uint64_t cpus = 0, mem = 0, gpus = 0;
    for (const std::string& name : p.nodes) {
      auto it = by_name.find(name);
      if (it == by_name.end()) continue;
      cpus += it->second->cpus();
      mem += it->second->real_memory_mb();
      gpus += GpusIn(it->second->gres());
    }
    auto minutes = [](int64_t secs) -> Json {
      return secs == kInfiniteDuration ? Json(nullptr) : Json(secs / 60);
    };
    Json part;
    Json flags = Json::array();
    if (p.is_default) flags.push_back("default");
    if (p.hidden) flags.push_back("hidden");
    if (p.exclusive_user) flags.push_back("exclusive_user");
    part["flags"] = std::move(flags);
    part["preemption_mode"] = Json::array({ToLower(
        p.preempt_mode.empty() ? Join(config.settings.preempt_mode, ",") : p.preempt_mode)});
    part["allowed_allocation_nodes"] = "";
    part["allowed_accounts"] = p.allow_accounts.empty() ? "ALL" : Join(p.allow_accounts, ",");
    part["allowed_groups"] = p.allow_groups.empty() ? "ALL" : Join(p.allow_groups, ",");
    part["allowed_qos"] = p.allow_qos.empty() ? "ALL" : Join(p.allow_qos, ",");
    part["alternative"] = "";
    part["billing_weights"] = "";
    part["default_memory_per_cpu"] = p.def_mem_per_cpu ? Json(*p.def_mem_per_cpu) : Json(nullptr);
    part["default_time_limit"] = p.default_time ? minutes(*p.default_time) : Json(nullptr);
    part["denied_accounts"] = Join(p.deny_accounts, ",");
    part["denied_qos"] = Join(p.deny_qos, ",");
    part["preemption_grace_time"] = p.grace_time;
    part["maximum_cpus_per_node"] =
        p.max_cpus_per_node == conf::kUnlimitedCount ? Json(nullptr) : Json(p.max_cpus_per_node);
    part["maximum_memory_per_node"] =
        p.max_mem_per_node ? Json(*p.max_mem_per_node) : Json(nullptr);
    part["maximum_nodes_per_job"] =
        p.max_nodes == conf::kUnlimitedCount ? Json(nullptr) : Json(p.max_nodes);
    part["max_time_limit"] = minutes(p.max_time);
    part["min_nodes_per_job"] = p.min_nodes;
    part["name"] = p.name;
    part["nodes"] = CompressHostlist(p.nodes);
    part["over_time_limit"] = p.over_time_limit ? Json(*p.over_time_limit / 60) : Json(nullptr);
    part["priority_job_factor"] = p.priority_job_factor;
    part["priority_tier"] = p.priority_tier;
    part["qos"] = p.qos;
    part["state"] = p.state;
    part["total_cpus"] = cpus;
    part["total_nodes"] = p.nodes.size();
    part["tres"] = Tres(cpus, mem, p.nodes.size(), gpus);
    list.push_back(std::move(part));
  }
  if (!wanted.empty() && list.empty()) {
    return ErrorAnswer(kFlavor, 404, "Invalid partition name specified: " + wanted,
                       kEslurmInvalidPartitionName);
  }
  Json out = Envelope(kFlavor);
  out["partitions"] = std::move(list);
  return JsonAnswer(out);
}

HttpResponse GetReservations(const HttpRequest&, const PathParams& params, Backend& backend) {
  const std::string wanted = Param(params, "reservation_name");
  wire::ReservationNameRequest req;
  req.set_name(wanted);
  auto answer = ParseAnswer<wire::ListReservationsResponse>(
      backend.CallController(api::kListReservations, req));
  if (!answer.ok()) return StatusAnswer(kFlavor, answer.status());
  Json list = Json::array();
  for (const wire::ReservationRecord& r : answer->reservations()) {
    if (!wanted.empty() && r.name() != wanted) continue;
    Json flags = Json::array();
    if (r.flags() & wire::RESV_FLAG_MAINT) flags.push_back("MAINT");
    if (r.flags() & wire::RESV_FLAG_IGNORE_JOBS) flags.push_back("IGNORE_JOBS");
    if (r.flags() & wire::RESV_FLAG_OVERLAP) flags.push_back("OVERLAP");
    if (r.flags() & wire::RESV_FLAG_SPEC_NODES) flags.push_back("SPEC_NODES");
    std::vector<std::string> nodes(r.nodes().begin(), r.nodes().end());
    Json resv;
    resv["accounts"] = JoinAll(r.accounts());
    resv["burst_buffer"] = "";
    resv["core_count"] = r.core_count();
    resv["core_spec_cnt"] = 0;
    resv["end_time"] = r.end_time();
    resv["features"] = "";
    resv["flags"] = std::move(flags);
    resv["groups"] = "";
    resv["licenses"] = "";
    resv["max_start_delay"] = 0;
    resv["name"] = r.name();
    resv["node_count"] = nodes.size();
    resv["node_list"] = CompressHostlist(nodes);
    resv["partition"] = r.partition();
    resv["purge_completed"] = {{"time", 0}};
    resv["start_time"] = r.start_time();
    resv["watts"] = 0;
    resv["tres"] = fmt::format("cpu={}", r.core_count());
    resv["users"] = JoinAll(r.users());
    list.push_back(std::move(resv));
  }
  if (!wanted.empty() && list.empty()) {
    return ErrorAnswer(kFlavor, 404, "Reservation not found: " + wanted, kSlurmError);
  }
  Json out = Envelope(kFlavor);
  out["reservations"] = std::move(list);
  return JsonAnswer(out);
}

}  // namespace rota::rest
