#include "ctld/core/job_shape.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/duration.h"
#include "common/gres_spec.h"
#include "common/hostlist.h"
#include "common/strings.h"
#include "ctld/core/job_defaults.h"
#include "sched/select.h"

namespace rota::ctld {
namespace {

struct GpuAsk {
  std::string type;
  uint32_t count = 0;
};

// "[type:]N" as --gpus, --gpus-per-node, --gpus-per-task and --gpus-per-socket take it.
Result<GpuAsk> ParseGpuCount(const std::string& text) {
  size_t colon = text.rfind(':');
  GpuAsk ask;
  std::string_view count = text;
  if (colon != std::string::npos) {
    ask.type = text.substr(0, colon);
    count = std::string_view(text).substr(colon + 1);
    // "gpu:a100:2" is accepted too.
    if (StartsWithIgnoreCase(ask.type, "gpu:")) ask.type = ask.type.substr(4);
    if (EqualsIgnoreCase(ask.type, "gpu")) ask.type.clear();
  }
  std::optional<uint64_t> n = ParseUint(count);
  if (!n || *n > sched::kMaxGpusPerNode * 100000ull) return InvalidArgument(kInvalidGres);
  ask.count = static_cast<uint32_t>(*n);
  return ask;
}

uint32_t CeilDiv(uint64_t a, uint64_t b) {
  return b == 0 ? 0 : static_cast<uint32_t>((a + b - 1) / b);
}

Status ApplyConstraint(const std::string& text, const sched::ClusterModel& model,
                       sched::Request& req) {
  Result<sched::FeatureExpr> expr = sched::FeatureExpr::Parse(text);
  if (!expr.ok()) return InvalidArgument(kInvalidFeature);
  for (const std::string& f : expr->Names()) {
    bool known = std::any_of(model.nodes.begin(), model.nodes.end(),
                             [&](const sched::NodeShape& n) { return n.HasFeature(f); });
    if (!known) return InvalidArgument(kInvalidFeature);
  }
  req.constraint = std::move(expr).value();
  return Status::Ok();
}

Status ApplyNodeNames(const std::string& text, const sched::ClusterModel& model,
                      std::vector<uint32_t>& out) {
  Result<std::vector<std::string>> names = ExpandHostlist(text);
  if (!names.ok()) return InvalidArgument(kInvalidNodeName);
  for (const std::string& n : *names) {
    int32_t i = model.IndexOf(n);
    if (i < 0) return InvalidArgument(kInvalidNodeName);
    out.push_back(static_cast<uint32_t>(i));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return Status::Ok();
}

// The memory rule: --mem, --mem-per-cpu, --mem-per-gpu, else DefMemPerGPU
// for a GPU job (`gpu_defaults`), else DefMemPerCPU, else the whole node
// (Slurm's default without DefMemPerCPU).
void ApplyMemory(const wire::JobSpec& spec, const conf::PartitionConfig& partition,
                 const conf::ClusterConfig& config, const sched::ClusterModel& model,
                 const GpuDefaults& gpu_defaults, sched::Request& req) {
  using sched::MemoryRule;
  if (!model.memory_consumable) return;
  std::optional<MemoryMb> def_per_cpu =
      partition.def_mem_per_cpu ? partition.def_mem_per_cpu : config.settings.def_mem_per_cpu;
  if (spec.mem_given() && spec.mem_per_node_mb() == 0) {
    req.memory = MemoryRule::kWholeNode;
  } else if (spec.mem_per_node_mb() > 0) {
    req.memory = MemoryRule::kPerNode;
    req.mem_mb = spec.mem_per_node_mb();
  } else if (spec.mem_per_cpu_mb() > 0) {
    req.memory = MemoryRule::kPerCpu;
    req.mem_mb = spec.mem_per_cpu_mb();
  } else if (spec.mem_per_gpu_mb() > 0) {
    req.memory = MemoryRule::kPerGpu;
    req.mem_mb = spec.mem_per_gpu_mb();
  } else if (gpu_defaults.mem_per_gpu > 0) {
    req.memory = MemoryRule::kPerGpu;
    req.mem_mb = gpu_defaults.mem_per_gpu;
  } else if (def_per_cpu) {
    req.memory = MemoryRule::kPerCpu;
    req.mem_mb = *def_per_cpu;
  } else {
    req.memory = MemoryRule::kWholeNode;
  }
}

// --mincpus, --tmp, --cores-per-socket and --threads-per-core are minimums
// a node must meet (Slurm's per-node constraints): the nodes short of one are
// left out of the job's candidates, as -x would leave them.
void ExcludeNodesBelowMinimums(const wire::JobSpec& spec, const conf::ClusterConfig& config,
                               const sched::ClusterModel& model,
                               const std::vector<uint32_t>& candidates,
                               std::vector<uint32_t>& excluded) {
  if (spec.min_cpus_per_node() == 0 && spec.tmp_disk_mb() == 0 && spec.cores_per_socket() == 0 &&
      spec.threads_per_core() == 0) {
    return;
  }
  for (uint32_t i : candidates) {
    const sched::NodeShape& node = model.nodes[i];
    const conf::NodeConfig* conf_node =
        spec.tmp_disk_mb() > 0 ? config.FindNode(node.name) : nullptr;
    const bool short_of_one =
        node.cpus() < spec.min_cpus_per_node() || node.cores_per_socket < spec.cores_per_socket() ||
        node.threads_per_core < spec.threads_per_core() ||
        (spec.tmp_disk_mb() > 0 &&
         (conf_node == nullptr || conf_node->tmp_disk_mb < spec.tmp_disk_mb()));
    if (short_of_one) excluded.push_back(i);
  }
  std::sort(excluded.begin(), excluded.end());
  excluded.erase(std::unique(excluded.begin(), excluded.end()), excluded.end());
}

}  // namespace

std::vector<uint32_t> PartitionNodeIndices(const conf::PartitionConfig& partition,
                                           const sched::ClusterModel& model) {
  // Kept by the model for the partitions it was built with (a partition of
  // the same name with other nodes, as a test may make, is looked up afresh).
  if (auto it = model.partition_nodes.find(partition.name);
      it != model.partition_nodes.end() && it->second.size() == partition.nodes.size() &&
      (it->second.empty() || (model.nodes[it->second.front()].name == partition.nodes.front() &&
                              model.nodes[it->second.back()].name == partition.nodes.back()))) {
    return it->second;
  }
  std::vector<uint32_t> out;
  out.reserve(partition.nodes.size());
  for (const std::string& name : partition.nodes) {
    int32_t i = model.IndexOf(name);
    if (i >= 0) out.push_back(static_cast<uint32_t>(i));
  }
  return out;
}

Result<JobShape> ShapeJob(const wire::JobSpec& spec, const conf::PartitionConfig& partition,
                          const conf::ClusterConfig& config, const sched::ClusterModel& model) {
  JobShape shape;
  sched::Request& req = shape.request;
  const std::vector<uint32_t> candidates = PartitionNodeIndices(partition, model);
  uint32_t max_node_cpus = 1;
  for (uint32_t i : candidates) max_node_cpus = std::max(max_node_cpus, model.nodes[i].cpus());

  // GPUs, by whichever denominators the user chose.
  GpuAsk per_node, per_job, per_task, per_socket;
  if (!spec.gres().empty()) {
    Result<std::vector<GresSpec>> gres = ParseGresList(spec.gres());
    if (!gres.ok()) return InvalidArgument(kInvalidGres);
    for (const GresSpec& g : *gres) {
      if (!EqualsIgnoreCase(g.name, "gpu")) return InvalidArgument(kInvalidGres);
      per_node = {g.type, static_cast<uint32_t>(g.count)};
    }
  }
  for (auto [text, target] :
       {std::pair{&spec.gpus_per_node(), &per_node}, std::pair{&spec.gpus(), &per_job},
        std::pair{&spec.gpus_per_task(), &per_task},
        std::pair{&spec.gpus_per_socket(), &per_socket}}) {
    if (text->empty()) continue;
    Result<GpuAsk> ask = ParseGpuCount(*text);
    if (!ask.ok()) return ask.status();
    *target = *ask;
  }
  std::string type;
  for (const GpuAsk* a : {&per_node, &per_job, &per_task, &per_socket}) {
    if (!a->type.empty()) type = a->type;
  }
  req.gpu_type = model.gpu_types.Find(type);
  req.gpus_per_node = per_node.count;
  req.gpus_per_job = per_job.count;
  req.gpus_per_task = per_task.count;
  req.gpus_per_socket = per_socket.count;
  req.sockets_per_node = spec.sockets_per_node();
  // DefCpuPerGPU / DefMemPerGPU when the job did not say (job_defaults.h).
  const GpuDefaults gpu_defaults = GpuDefaultsFor(spec, partition, config);
  req.cpus_per_gpu = spec.cpus_per_gpu() > 0 ? spec.cpus_per_gpu() : gpu_defaults.cpus_per_gpu;
  req.cpus_per_task = std::max(1u, spec.cpus_per_task());
  // --hint=nomultithread is Slurm's --threads-per-core=1 (when not given).
  req.threads_per_core = spec.threads_per_core() > 0                      ? spec.threads_per_core()
                         : EqualsIgnoreCase(spec.hint(), "nomultithread") ? 1u
                                                                          : 0u;

  // Nodes and tasks.
  std::vector<uint32_t> required;
  if (!spec.nodelist().empty())
    ROTA_RETURN_IF_ERROR(ApplyNodeNames(spec.nodelist(), model, required));
  if (!spec.exclude().empty())
    ROTA_RETURN_IF_ERROR(ApplyNodeNames(spec.exclude(), model, req.excluded_nodes));
  ExcludeNodesBelowMinimums(spec, config, model, candidates, req.excluded_nodes);
  for (uint32_t r : required) {
    if (std::find(candidates.begin(), candidates.end(), r) == candidates.end()) {
      return InvalidArgument(kNodeConfigNotAvailable);
    }
  }
  req.required_nodes = required;
  uint32_t min_nodes = std::max<uint32_t>(spec.min_nodes(), required.size());
  uint32_t tasks = spec.num_tasks();
  // -O: CPUs are allocated as for one task per node; Slurm then ignores the
  // per-node task count too.
  const uint32_t tpn = spec.overcommit() ? 0 : spec.ntasks_per_node();
  if (spec.ntasks_per_gpu() > 0) {
    // Tasks from GPUs, or GPUs from tasks.
    if (tasks > 0 && !req.wants_gpus()) {
      req.gpus_per_job = CeilDiv(tasks, spec.ntasks_per_gpu());
    } else if (tasks == 0) {
      uint32_t gpus =
          req.gpus_per_job > 0 ? req.gpus_per_job : req.gpus_per_node * std::max(1u, min_nodes);
      tasks = spec.ntasks_per_gpu() * std::max(1u, gpus);
    }
  }
  if (min_nodes > 0 || (tpn > 0 && tasks > 0)) {
    req.nodes_fixed = spec.max_nodes() == 0 || spec.max_nodes() <= min_nodes;
    req.nodes = std::max(min_nodes, tpn > 0 && tasks > 0 ? CeilDiv(tasks, tpn) : 1u);
    if (!req.nodes_fixed) req.max_nodes = spec.max_nodes();
  } else {
    req.nodes_fixed = tasks <= 1 && req.gpus_per_job == 0;
    req.nodes = 1;
    req.max_nodes = spec.max_nodes();
  }
  if (tasks == 0) tasks = tpn > 0 ? tpn * req.nodes : req.nodes;
  tasks = std::max(tasks, req.nodes);
  // What the allocation holds CPUs for: every task, or under -O one per node
  // (the tasks then share them).
  const uint32_t held_tasks = spec.overcommit() ? req.nodes : tasks;
  req.tasks = held_tasks;
  req.tasks_per_node = tpn;
  req.tasks_per_socket = spec.ntasks_per_socket();
  shape.num_tasks = tasks;
  shape.nodes =
      req.nodes_fixed
          ? req.nodes
          : std::max(req.nodes, CeilDiv(uint64_t{held_tasks} * req.cpus_per_task, max_node_cpus));

  ApplyMemory(spec, partition, config, model, gpu_defaults, req);
  req.exclusive = spec.exclusive() || partition.oversubscribe == "EXCLUSIVE";
  req.contiguous = spec.contiguous();
  req.spread_job = spec.spread_job();
  req.enforce_binding = spec.gres_flags().find("enforce-binding") != std::string::npos;
  if (!spec.constraint().empty())
    ROTA_RETURN_IF_ERROR(ApplyConstraint(spec.constraint(), model, req));
  if (!spec.switches().empty()) {
    size_t at = spec.switches().find('@');
    req.max_leaf_switches =
        static_cast<uint32_t>(ParseUint(spec.switches().substr(0, at)).value_or(0));
    if (at != std::string::npos) {
      Result<DurationSecs> wait = ParseDuration(spec.switches().substr(at + 1));
      if (wait.ok()) shape.switches_wait_s = *wait;
    }
  }
  if (req.wants_gpus() && req.gpu_type == sched::GpuTypes::kUnknown) {
    return InvalidArgument(kNodeConfigNotAvailable);
  }

  // The estimates shown while pending.
  uint32_t tasks_per_node = tpn > 0 ? tpn : CeilDiv(held_tasks, shape.nodes);
  uint32_t gpus_per_node = std::max({req.gpus_per_node + req.gpus_per_task * tasks_per_node,
                                     CeilDiv(req.gpus_per_job, shape.nodes),
                                     req.gpus_per_socket * std::max(1u, req.sockets_per_node)});
  shape.total_gpus = std::max(req.gpus_per_job, gpus_per_node * shape.nodes);
  shape.total_cpus =
      std::max<uint32_t>(held_tasks * req.cpus_per_task, req.cpus_per_gpu * shape.total_gpus);

  // Limits of the partition hold the job pending rather than refusing it.
  int64_t limit = spec.time_limit_s();
  if (limit == 0) {
    DurationSecs d = partition.default_time.value_or(partition.max_time);
    limit = d == kInfiniteDuration ? -1 : d;
  }
  shape.time_limit_s = limit;
  bool over_time =
      partition.max_time != kInfiniteDuration && (limit < 0 || limit > partition.max_time);
  if (over_time) {
    shape.partition_reason = "PartitionTimeLimit";
  } else if (partition.max_nodes != conf::kUnlimitedCount && shape.nodes > partition.max_nodes) {
    shape.partition_reason = "PartitionNodeLimit";
  } else if (req.nodes > candidates.size()) {
    shape.partition_reason = "PartitionConfig";
  }

  return shape;
}

Status CheckCanEverRun(const JobShape& shape, const conf::PartitionConfig& partition,
                       const sched::ClusterModel& model) {
  // On the partition's nodes with nothing else running. A request for more
  // nodes than the partition has pends (PartitionConfig); then each node's
  // share alone must fit somewhere.
  const std::vector<uint32_t> candidates = PartitionNodeIndices(partition, model);
  const sched::Request& req = shape.request;
  sched::Request probe = req;
  probe.switches_wait_over = true;
  if (req.nodes > candidates.size()) {
    probe.nodes = 1;
    probe.nodes_fixed = true;
    probe.tasks =
        std::max(1u, req.tasks_per_node > 0 ? req.tasks_per_node : CeilDiv(req.tasks, shape.nodes));
    probe.gpus_per_job = CeilDiv(req.gpus_per_job, req.nodes);
    probe.required_nodes.clear();
  }
  if (sched::Select(model, model.empty_usage, candidates, probe).allocation) return Status::Ok();
  probe.memory = sched::MemoryRule::kNone;
  if (req.memory != sched::MemoryRule::kNone &&
      sched::Select(model, model.empty_usage, candidates, probe).allocation) {
    return InvalidArgument(fmt::format("{}\n{}", kMemoryNotSatisfiable, kNodeConfigNotAvailable));
  }
  return InvalidArgument(kNodeConfigNotAvailable);
}

}  // namespace rota::ctld
