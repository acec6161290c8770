#include "sched/failure_memo.h"

#include <string>
#include <vector>

namespace rota::sched {

namespace {

// Appends `v`'s bytes: every field at a fixed width, so that two different
// requests never give the same key.
template <typename T>
void Put(std::string& key, T v) {
  key.append(reinterpret_cast<const char*>(&v), sizeof v);
}

void PutNodes(std::string& key, const std::vector<uint32_t>& nodes) {
  Put(key, static_cast<uint32_t>(nodes.size()));
  for (uint32_t n : nodes) Put(key, n);
}

}  // namespace

// A planning pass asks for the key of every job it tests: bytes, not text,
// so that it costs a few copies rather than twenty formatted numbers.
std::string Fingerprint(const Request& r) {
  const std::string& constraint = r.constraint.source();
  std::string key;
  key.reserve(96 + constraint.size() + 4 * (r.required_nodes.size() + r.excluded_nodes.size()));
  for (uint32_t v :
       {r.nodes, r.max_nodes, r.tasks, r.tasks_per_node, r.cpus_per_task, r.gpus_per_node,
        r.gpus_per_job, r.gpus_per_task, r.gpus_per_socket, r.sockets_per_node, r.cpus_per_gpu,
        r.max_leaf_switches, r.threads_per_core, r.tasks_per_socket}) {
    Put(key, v);
  }
  Put(key, r.gpu_type);
  Put(key, static_cast<uint8_t>(r.memory));
  Put(key, r.mem_mb);
  Put(key,
      static_cast<uint8_t>(uint8_t{r.nodes_fixed} | uint8_t{r.exclusive} << 1 |
                           uint8_t{r.enforce_binding} << 2 | uint8_t{r.switches_wait_over} << 3 |
                           uint8_t{r.contiguous} << 4 | uint8_t{r.spread_job} << 5));
  Put(key, static_cast<uint32_t>(constraint.size()));
  key += constraint;
  PutNodes(key, r.required_nodes);
  PutNodes(key, r.excluded_nodes);
  return key;
}

}  // namespace rota::sched
