#include "noded/stepd/task_cpu_binding.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace rota::noded {
namespace {

bool Within(const std::vector<uint32_t>& cpus, const std::vector<uint32_t>& allowed) {
  return std::all_of(cpus.begin(), cpus.end(), [&](uint32_t c) {
    return std::find(allowed.begin(), allowed.end(), c) != allowed.end();
  });
}

std::string Join(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ",") + p;
  return out;
}

}  // namespace

Result<TaskCpuBinding> BindTaskCpus(const CpuBindSpec& spec, const TaskCpuRequest& request) {
  TaskCpuBinding out;
  out.verbose = spec.verbose;
  out.kind = spec.kind;
  if (out.kind == CpuBindSpec::kDefault) {
    out.kind = request.affinity_by_default ? CpuBindSpec::kCores : CpuBindSpec::kNone;
  }
  out.task_cpus.resize(request.local_tasks);
  if (out.kind == CpuBindSpec::kNone) return out;
  const std::vector<uint32_t>& step = request.step_cpus;
  const uint32_t per_task = std::max<uint32_t>(1, request.cpus_per_task);
  const uint32_t threads = std::max<uint32_t>(1, request.threads_per_core);
  const uint32_t cores = std::max<uint32_t>(1, request.cores_per_socket);
  auto core_of = [&](uint32_t cpu) { return cpu / threads; };
  auto socket_of = [&](uint32_t cpu) { return cpu / threads / cores; };
  const bool listed = out.kind == CpuBindSpec::kMapCpu || out.kind == CpuBindSpec::kMaskCpu;
  if (step.empty() && !listed) {
    return InvalidArgument("--cpu-bind: the step holds no CPUs on this node");
  }
  if (listed && spec.lists.empty()) return InvalidArgument("--cpu-bind: empty CPU list");
  for (uint32_t t = 0; t < request.local_tasks; ++t) {
    std::vector<uint32_t> own;  // The task's share of the step's CPUs
    for (uint32_t i = 0; i < per_task && !step.empty(); ++i) {
      own.push_back(step[(t * per_task + i) % step.size()]);
    }
    std::set<uint32_t> cpus;
    switch (out.kind) {
      case CpuBindSpec::kThreads:
        cpus.insert(own.begin(), own.end());
        break;
      case CpuBindSpec::kCores:
        for (uint32_t c : step) {
          for (uint32_t o : own) {
            if (core_of(c) == core_of(o)) cpus.insert(c);
          }
        }
        break;
      case CpuBindSpec::kSockets:
        for (uint32_t c : step) {
          for (uint32_t o : own) {
            if (socket_of(c) == socket_of(o)) cpus.insert(c);
          }
        }
        break;
      case CpuBindSpec::kRank:
        cpus.insert(step[t % step.size()]);
        break;
      case CpuBindSpec::kMapCpu:
      case CpuBindSpec::kMaskCpu: {
        const std::vector<uint32_t>& named = spec.lists[t % spec.lists.size()];
        if (!request.job_cpus.empty() && !Within(named, request.job_cpus)) {
          return InvalidArgument(fmt::format(
              "--cpu-bind: task {} is given CPUs outside the job's allocation here", t));
        }
        cpus.insert(named.begin(), named.end());
        break;
      }
      default:
        break;
    }
    out.task_cpus[t].assign(cpus.begin(), cpus.end());
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> CpuBindEnvironment(const TaskCpuBinding& binding) {
  const std::string verbosity = binding.verbose ? "verbose" : "quiet";
  std::string type = "mask_cpu:";
  std::vector<std::string> list;
  if (!binding.bound()) {
    type = "none";
  } else if (binding.kind == CpuBindSpec::kMapCpu) {
    type = "map_cpu:";
    for (const auto& cpus : binding.task_cpus) {
      list.push_back(cpus.empty() ? "0" : std::to_string(cpus[0]));
    }
  } else {
    for (const auto& cpus : binding.task_cpus) list.push_back(CpuMaskHex(cpus));
  }
  return {
      {"SLURM_CPU_BIND", verbosity + "," + (binding.bound() ? type + Join(list) : type)},
      {"SLURM_CPU_BIND_LIST", Join(list)},
      {"SLURM_CPU_BIND_TYPE", type},
      {"SLURM_CPU_BIND_VERBOSE", verbosity},
  };
}

std::string DescribeTaskCpus(const TaskCpuBinding& binding, const std::string& node,
                             uint32_t global_task, uint32_t local_task, pid_t pid,
                             const std::vector<uint32_t>& unbound_cpus) {
  const char* kind = !binding.bound()                       ? "NONE"
                     : binding.kind == CpuBindSpec::kMapCpu ? "MAP "
                                                            : "MASK";
  const std::vector<uint32_t>& cpus = binding.bound() && local_task < binding.task_cpus.size()
                                          ? binding.task_cpus[local_task]
                                          : unbound_cpus;
  return fmt::format("cpu-bind={} - {}, task {:2} {:2} [{}]: mask {} set", kind, node, global_task,
                     local_task, pid, CpuMaskHex(cpus));
}

}  // namespace rota::noded
