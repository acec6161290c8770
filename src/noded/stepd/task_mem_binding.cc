#include "noded/stepd/task_mem_binding.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <set>

#include "common/cpu_bind_spec.h"
#include "common/strings.h"
#include "noded/cpu_list.h"

namespace rota::noded {

Result<TaskMemBinding> BindTaskMemory(const MemBindSpec& spec, const TaskMemRequest& request) {
  TaskMemBinding out;
  out.kind = spec.kind;
  out.verbose = spec.verbose;
  out.prefer = spec.prefer;
  out.task_nodes.resize(request.local_tasks);
  if (!out.bound()) return out;
  std::set<uint32_t> host_nodes;
  for (const auto& [cpu, node] : request.numa_node_of_cpu) host_nodes.insert(node);
  // A host without sysfs's NUMA directory has one node, 0.
  if (host_nodes.empty()) host_nodes.insert(0);
  const std::vector<uint32_t> nodes(host_nodes.begin(), host_nodes.end());
  auto node_of = [&](uint32_t cpu) {
    auto it = request.numa_node_of_cpu.find(cpu);
    return it != request.numa_node_of_cpu.end() ? it->second : nodes.front();
  };
  for (uint32_t t = 0; t < request.local_tasks; ++t) {
    std::set<uint32_t> mine;
    switch (out.kind) {
      case MemBindSpec::kRank:
        mine.insert(nodes[t % nodes.size()]);
        break;
      case MemBindSpec::kLocal: {
        const std::vector<uint32_t>& cpus =
            t < request.task_cpus.size() && !request.task_cpus[t].empty() ? request.task_cpus[t]
                                                                          : request.step_cpus;
        for (uint32_t cpu : cpus) mine.insert(node_of(cpu));
        if (mine.empty()) mine.insert(nodes.front());
        break;
      }
      case MemBindSpec::kMapMem:
      case MemBindSpec::kMaskMem: {
        const std::vector<uint32_t>& named = spec.lists[t % spec.lists.size()];
        for (uint32_t node : named) {
          if (host_nodes.count(node) == 0) {
            return InvalidArgument(fmt::format(
                "--mem-bind: task {} is given NUMA node {}, which this node lacks", t, node));
          }
          mine.insert(node);
        }
        break;
      }
      case MemBindSpec::kNone:
        break;
    }
    out.task_nodes[t].assign(mine.begin(), mine.end());
  }
  return out;
}

std::map<uint32_t, uint32_t> ReadNumaLayout(const std::filesystem::path& node_dir) {
  std::map<uint32_t, uint32_t> layout;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(node_dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with("node")) continue;
    std::optional<uint64_t> node = ParseUint(std::string_view(name).substr(4));
    if (!node) continue;
    std::ifstream in(entry.path() / "cpulist");
    std::string text;
    std::getline(in, text);
    std::optional<std::vector<uint32_t>> cpus = ParseCpuList(Trim(text));
    if (!cpus) continue;
    for (uint32_t cpu : *cpus) layout[cpu] = static_cast<uint32_t>(*node);
  }
  return layout;
}

std::vector<std::pair<std::string, std::string>> MemBindEnvironment(const TaskMemBinding& binding) {
  const std::string verbosity = binding.verbose ? "verbose" : "quiet";
  std::string type = "none";
  switch (binding.kind) {
    case MemBindSpec::kRank:
      type = "rank";
      break;
    case MemBindSpec::kLocal:
      type = "local";
      break;
    case MemBindSpec::kMapMem:
      type = "map_mem:";
      break;
    case MemBindSpec::kMaskMem:
      type = "mask_mem:";
      break;
    case MemBindSpec::kNone:
      break;
  }
  std::string list;
  if (binding.bound()) {
    for (const std::vector<uint32_t>& nodes : binding.task_nodes) {
      if (!list.empty()) list += ',';
      list += binding.kind == MemBindSpec::kMapMem && nodes.size() == 1 ? std::to_string(nodes[0])
                                                                        : CpuMaskHex(nodes);
    }
  }
  const bool listed = binding.kind == MemBindSpec::kMapMem || binding.kind == MemBindSpec::kMaskMem;
  return {
      {"SLURM_MEM_BIND",
       verbosity + "," + (binding.prefer ? "prefer," : "") + type + (listed ? list : "")},
      {"SLURM_MEM_BIND_LIST", list},
      {"SLURM_MEM_BIND_PREFER", binding.prefer ? "prefer" : ""},
      {"SLURM_MEM_BIND_SORT", ""},
      {"SLURM_MEM_BIND_TYPE", type},
      {"SLURM_MEM_BIND_VERBOSE", verbosity},
  };
}

std::string DescribeTaskMemory(const TaskMemBinding& binding, const std::string& node,
                               uint32_t global_task, uint32_t local_task, pid_t pid) {
  const char* kind = !binding.bound()                       ? "NONE"
                     : binding.kind == MemBindSpec::kMapMem ? "MAP "
                     : binding.kind == MemBindSpec::kRank   ? "RANK"
                     : binding.kind == MemBindSpec::kLocal  ? "LOC "
                                                            : "MASK";
  const std::vector<uint32_t> none;
  const std::vector<uint32_t>& nodes =
      local_task < binding.task_nodes.size() ? binding.task_nodes[local_task] : none;
  return fmt::format("mem-bind={} - {}, task {:2} {:2} [{}]: mask {} set", kind, node, global_task,
                     local_task, pid, CpuMaskHex(nodes));
}

}  // namespace rota::noded
