#include "sched/failure_memo.h"

#include <fmt/format.h>

namespace rota::sched {

std::string Fingerprint(const Request& r) {
  std::string key = fmt::format(
      "{} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {}", r.nodes, r.nodes_fixed,
      r.max_nodes, r.tasks, r.tasks_per_node, r.cpus_per_task, r.gpu_type, r.gpus_per_node,
      r.gpus_per_job, r.gpus_per_task, r.gpus_per_socket, r.sockets_per_node, r.cpus_per_gpu,
      static_cast<int>(r.memory), r.mem_mb, r.exclusive, r.enforce_binding, r.max_leaf_switches,
      r.switches_wait_over, r.constraint.source());
  for (uint32_t n : r.required_nodes) key += fmt::format(" w{}", n);
  for (uint32_t n : r.excluded_nodes) key += fmt::format(" x{}", n);
  return key;
}

}  // namespace rota::sched
