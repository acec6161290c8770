#include "noded/stepd/task_cpu_binding.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <map>
#include <set>

#include "common/strings.h"

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

// Deals the step's CPUs to `tasks` tasks as the sockets level says. A task
// takes whole units (a core's threads when binding to cores, else single
// CPUs) until it has `per_task` CPUs; tasks beyond what the CPUs hold start
// over from the first.
std::vector<std::vector<uint32_t>> DealCpus(const std::vector<std::vector<uint32_t>>& units,
                                            uint32_t tasks, uint32_t per_task,
                                            model::TaskDistribution::SocketLevel level,
                                            uint32_t cpus_per_socket) {
  std::map<uint32_t, std::deque<const std::vector<uint32_t>*>> by_socket;
  for (const std::vector<uint32_t>& unit : units) {
    by_socket[unit.front() / cpus_per_socket].push_back(&unit);
  }
  std::vector<std::deque<const std::vector<uint32_t>*>> full;
  for (auto& [socket, queue] : by_socket) full.push_back(std::move(queue));
  if (level == model::TaskDistribution::kSocketBlock) {  // One queue, in order
    std::deque<const std::vector<uint32_t>*> all;
    for (auto& queue : full) all.insert(all.end(), queue.begin(), queue.end());
    full = {std::move(all)};
  }
  std::vector<std::deque<const std::vector<uint32_t>*>> left;
  size_t units_left = 0;
  size_t next = 0;  // The socket the next task starts on
  std::vector<std::vector<uint32_t>> dealt(tasks);
  for (uint32_t t = 0; t < tasks; ++t) {
    size_t socket = next;
    while (dealt[t].size() < per_task || dealt[t].empty()) {
      if (units_left == 0) {           // Every unit was dealt: start over
        if (!dealt[t].empty()) break;  // This task keeps what it has
        left = full;
        units_left = units.size();
        socket = next = 0;
      }
      while (left[socket].empty()) socket = (socket + 1) % left.size();
      const std::vector<uint32_t>& unit = *left[socket].front();
      left[socket].pop_front();
      --units_left;
      dealt[t].insert(dealt[t].end(), unit.begin(), unit.end());
      // fcyclic: each unit of a task from the next socket.
      if (level == model::TaskDistribution::kSocketFcyclic) socket = (socket + 1) % left.size();
    }
    // cyclic: the next task starts on the socket after this one's first.
    next = level == model::TaskDistribution::kSocketFcyclic ? socket : (next + 1) % full.size();
  }
  return dealt;
}

}  // namespace

Result<TaskCpuBinding> BindTaskCpus(const CpuBindSpec& spec, const TaskCpuRequest& request) {
  TaskCpuBinding out;
  out.verbose = spec.verbose;
  out.kind = spec.kind;
  const bool threads_hint = EqualsIgnoreCase(request.hint, "multithread") ||
                            EqualsIgnoreCase(request.hint, "nomultithread");
  const bool one_thread_per_core =
      spec.kind == CpuBindSpec::kDefault && EqualsIgnoreCase(request.hint, "nomultithread");
  if (out.kind == CpuBindSpec::kDefault) {
    out.kind = !request.affinity_by_default ? CpuBindSpec::kNone
               : threads_hint               ? CpuBindSpec::kThreads
                                            : CpuBindSpec::kCores;
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
  // What a task takes whole: a core's threads (of the step) when binding to
  // cores; else single CPUs, only the first of each core under
  // --hint=nomultithread, the first N under --ntasks-per-core=N.
  const uint32_t threads_used =
      one_thread_per_core ? 1 : (request.ntasks_per_core > 0 ? request.ntasks_per_core : threads);
  std::vector<std::vector<uint32_t>> units;
  uint32_t taken_of_core = 0;  // Threads of the last CPU's core taken so far
  for (uint32_t cpu : step) {
    const bool same_core = !units.empty() && core_of(units.back().back()) == core_of(cpu);
    taken_of_core = same_core ? taken_of_core + 1 : 1;
    if (same_core && out.kind == CpuBindSpec::kCores) {
      units.back().push_back(cpu);
    } else if (taken_of_core <= threads_used) {
      units.push_back({cpu});
    }
  }
  const std::vector<std::vector<uint32_t>> shares =
      listed ? std::vector<std::vector<uint32_t>>(request.local_tasks)
             : DealCpus(units, request.local_tasks, per_task, request.sockets, threads * cores);
  for (uint32_t t = 0; t < request.local_tasks; ++t) {
    const std::vector<uint32_t>& own = shares[t];  // The task's share of the step's CPUs
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
