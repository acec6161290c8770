#include "ctld/core/job_shape.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/gres_spec.h"
#include "common/hostlist.h"
#include "common/strings.h"

namespace rota::ctld {
namespace {

struct GpuAsk {
  std::string type;
  uint32_t count = 0;
};

// "[type:]N" as --gpus, --gpus-per-node and --gpus-per-task take it.
Result<GpuAsk> ParseGpuCount(const std::string& text) {
  size_t colon = text.rfind(':');
  GpuAsk ask;
  std::string_view count = text;
  if (colon != std::string::npos) {
    ask.type = text.substr(0, colon);
    count = std::string_view(text).substr(colon + 1);
    // "gpu:a100:2" is accepted too.
    if (StartsWithIgnoreCase(ask.type, "gpu:")) ask.type = ask.type.substr(4);
  }
  std::optional<uint64_t> n = ParseUint(count);
  if (!n || *n > UINT32_MAX) return InvalidArgument(kInvalidGres);
  ask.count = static_cast<uint32_t>(*n);
  return ask;
}

uint32_t CeilDiv(uint64_t a, uint64_t b) {
  return b == 0 ? 0 : static_cast<uint32_t>((a + b - 1) / b);
}

bool MemoryIsConsumable(const conf::ClusterConfig& config) {
  for (const std::string& p : config.settings.select_type_parameters) {
    if (p.find("Memory") != std::string::npos) return true;
  }
  return false;
}

// --constraint: "a&b", "a,b" (all), "a|b" and "[a|b]" (one of), "a*2" (counted: a).
Status ApplyConstraint(const std::string& text, const conf::ClusterConfig& config,
                       sched::ResourceRequest& req) {
  std::string cleaned;
  for (char c : text) {
    if (c != '[' && c != ']' && c != '(' && c != ')') cleaned += c;
  }
  auto known = [&](const std::string& f) {
    return std::any_of(config.nodes.begin(), config.nodes.end(), [&](const conf::NodeConfig& n) {
      return std::find(n.features.begin(), n.features.end(), f) != n.features.end();
    });
  };
  std::string and_separated = cleaned;
  std::replace(and_separated.begin(), and_separated.end(), ',', '&');
  for (std::string_view clause : Split(and_separated, '&')) {
    std::vector<std::string> options;
    for (std::string_view option : Split(clause, '|')) {
      std::string name(Trim(option.substr(0, option.find('*'))));
      if (name.empty() || !known(name)) return InvalidArgument(kInvalidFeature);
      options.push_back(name);
    }
    if (options.size() == 1) {
      req.required_features.push_back(options[0]);
    } else {
      req.any_of_features.push_back(options);
    }
  }
  return Status::Ok();
}

}  // namespace

sched::NodeResources ConfiguredResources(const conf::NodeConfig& node) {
  sched::NodeResources r;
  r.name = node.name;
  r.cpus = node.cpus;
  r.mem_mb = node.real_memory_mb;
  r.weight = node.weight;
  r.features.insert(node.features.begin(), node.features.end());
  for (const GresSpec& g : node.gres) {
    if (EqualsIgnoreCase(g.name, "gpu")) r.gpus_by_type[g.type] += static_cast<uint32_t>(g.count);
  }
  return r;
}

Result<JobShape> ShapeJob(const wire::JobSpec& spec, const conf::PartitionConfig& partition,
                          const conf::ClusterConfig& config) {
  JobShape shape;
  sched::ResourceRequest& req = shape.request;
  std::vector<sched::NodeResources> candidates;
  uint32_t max_node_cpus = 1;
  for (const std::string& name : partition.nodes) {
    candidates.push_back(ConfiguredResources(*config.FindNode(name)));
    max_node_cpus = std::max(max_node_cpus, candidates.back().cpus);
  }

  // GPUs per node, from whichever denominator the user chose.
  GpuAsk per_node;
  GpuAsk per_job;
  GpuAsk per_task;
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
        std::pair{&spec.gpus_per_task(), &per_task}}) {
    if (text->empty()) continue;
    Result<GpuAsk> ask = ParseGpuCount(*text);
    if (!ask.ok()) return ask.status();
    *target = *ask;
  }

  uint32_t cpus_per_task = std::max(1u, spec.cpus_per_task());
  uint32_t nodes = spec.min_nodes();
  uint32_t tasks = spec.num_tasks();
  if (tasks == 0)
    tasks = spec.ntasks_per_node() > 0 ? spec.ntasks_per_node() * std::max(1u, nodes)
                                       : std::max(1u, nodes);
  if (nodes == 0) {
    // Spread over as many nodes as the biggest node's CPUs require, as Slurm does for -n.
    uint32_t per_node_tasks = spec.ntasks_per_node() > 0 ? spec.ntasks_per_node() : 0;
    nodes = per_node_tasks > 0
                ? CeilDiv(tasks, per_node_tasks)
                : std::max(1u, CeilDiv(uint64_t{tasks} * cpus_per_task, max_node_cpus));
  }
  shape.num_tasks = tasks;
  req.nodes = nodes;
  uint32_t tasks_per_node =
      spec.ntasks_per_node() > 0 ? spec.ntasks_per_node() : CeilDiv(tasks, nodes);

  req.gpu_type = !per_node.type.empty()  ? per_node.type
                 : !per_job.type.empty() ? per_job.type
                                         : per_task.type;
  req.gpus_per_node =
      std::max({per_node.count, CeilDiv(per_job.count, nodes), per_task.count * tasks_per_node});
  req.cpus_per_node = tasks_per_node * cpus_per_task;
  if (spec.cpus_per_gpu() > 0)
    req.cpus_per_node = std::max(req.cpus_per_node, spec.cpus_per_gpu() * req.gpus_per_node);

  if (MemoryIsConsumable(config)) {
    std::optional<MemoryMb> def_per_cpu =
        partition.def_mem_per_cpu ? partition.def_mem_per_cpu : config.settings.def_mem_per_cpu;
    if (spec.mem_given() && spec.mem_per_node_mb() == 0) {
      req.whole_node_memory = true;
    } else if (spec.mem_per_node_mb() > 0) {
      req.mem_per_node_mb = spec.mem_per_node_mb();
    } else if (spec.mem_per_cpu_mb() > 0) {
      req.mem_per_node_mb = spec.mem_per_cpu_mb() * req.cpus_per_node;
    } else if (spec.mem_per_gpu_mb() > 0) {
      req.mem_per_node_mb = spec.mem_per_gpu_mb() * req.gpus_per_node;
    } else if (def_per_cpu) {
      req.mem_per_node_mb = *def_per_cpu * req.cpus_per_node;
    } else {
      req.whole_node_memory = true;  // Slurm's default without DefMemPerCPU: the whole node.
    }
  }
  req.exclusive = spec.exclusive() || partition.oversubscribe == "EXCLUSIVE";
  if (!spec.constraint().empty())
    ROTA_RETURN_IF_ERROR(ApplyConstraint(spec.constraint(), config, req));

  for (auto [text, target] : {std::pair{&spec.nodelist(), &req.required_nodes},
                              std::pair{&spec.exclude(), &req.excluded_nodes}}) {
    if (text->empty()) continue;
    Result<std::vector<std::string>> names = ExpandHostlist(*text);
    if (!names.ok()) return InvalidArgument(kInvalidNodeName);
    for (const std::string& n : *names) {
      if (config.FindNode(n) == nullptr) return InvalidArgument(kInvalidNodeName);
      target->insert(n);
    }
  }
  for (const std::string& n : req.required_nodes) {
    if (std::find(partition.nodes.begin(), partition.nodes.end(), n) == partition.nodes.end()) {
      return InvalidArgument(kNodeConfigNotAvailable);
    }
  }
  req.nodes = std::max<uint32_t>(req.nodes, req.required_nodes.size());
  shape.total_cpus = req.cpus_per_node * req.nodes;
  shape.total_gpus = req.gpus_per_node * req.nodes;

  // Could each node's share ever fit on some node of the partition?
  sched::ResourceRequest one = req;
  one.nodes = std::min<uint32_t>(std::max<uint32_t>(1, req.required_nodes.size()), req.nodes);
  if (!sched::FirstFit(candidates, one)) {
    one.mem_per_node_mb = 0;
    if (sched::FirstFit(candidates, one)) {
      return InvalidArgument(fmt::format("{}\n{}", kMemoryNotSatisfiable, kNodeConfigNotAvailable));
    }
    return InvalidArgument(kNodeConfigNotAvailable);
  }

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
  } else if (partition.max_nodes != conf::kUnlimitedCount && req.nodes > partition.max_nodes) {
    shape.partition_reason = "PartitionNodeLimit";
  } else if (req.nodes > partition.nodes.size()) {
    shape.partition_reason = "PartitionConfig";
  }
  return shape;
}

}  // namespace rota::ctld
