#pragma once

// What a job asks of the cluster, in the selection's terms: tasks, CPUs,
// memory and GPUs by the denominator the user chose, node features, named and
// excluded nodes, topology. ctld/core's ShapeJob fills it from sbatch options.

#include <cstdint>
#include <vector>

#include "common/memory_size.h"
#include "sched/cluster_model.h"
#include "sched/feature_expr.h"

namespace rota::sched {

enum class MemoryRule : uint8_t {
  kNone,       // Memory is not consumable (CR_Core, CR_CPU)
  kPerNode,    // --mem
  kPerCpu,     // --mem-per-cpu (and DefMemPerCPU): times the CPUs allocated
  kPerGpu,     // --mem-per-gpu: times the GPUs allocated on the node
  kWholeNode,  // --mem=0, or no request without DefMemPerCPU
};

struct Request {
  // Nodes: exactly `nodes` when nodes_fixed (-N, -w, --ntasks-per-node);
  // otherwise as few as the tasks need, up to max_nodes (0: no limit).
  uint32_t nodes = 1;
  bool nodes_fixed = true;
  uint32_t max_nodes = 0;
  uint32_t tasks = 1;
  uint32_t tasks_per_node = 0;  // --ntasks-per-node; 0: spread as resources allow
  // --ntasks-per-socket: a node holds at most this many tasks per socket; 0: no cap.
  uint32_t tasks_per_socket = 0;
  uint32_t cpus_per_task = 1;
  // --threads-per-core (or --hint=nomultithread, 1): the threads of a core a
  // task may use. Where a node's cores have more, each task gets whole cores
  // of its own and leaves their other threads unused; 0: all of them.
  uint32_t threads_per_core = 0;

  int gpu_type = GpuTypes::kAny;
  uint32_t gpus_per_node = 0;    // --gres=gpu:N, --gpus-per-node
  uint32_t gpus_per_job = 0;     // --gpus, spread over the job's nodes
  uint32_t gpus_per_task = 0;    // --gpus-per-task
  uint32_t gpus_per_socket = 0;  // --gpus-per-socket
  uint32_t sockets_per_node = 0;
  uint32_t cpus_per_gpu = 0;

  MemoryRule memory = MemoryRule::kNone;
  MemoryMb mem_mb = 0;  // Per node / CPU / GPU by `memory`

  bool exclusive = false;
  bool contiguous = false;  // --contiguous: nodes consecutive in the configuration's order
  // --spread-job: as many nodes as the tasks allow (up to max_nodes), the
  // tasks dealt evenly over them; only with a node count left free.
  bool spread_job = false;
  bool enforce_binding = false;  // --gres-flags=enforce-binding
  FeatureExpr constraint;
  std::vector<uint32_t> required_nodes;  // -w, node indices
  std::vector<uint32_t> excluded_nodes;  // -x, node indices
  uint32_t max_leaf_switches = 0;        // --switches=N; 0: any
  bool switches_wait_over = false;       // --switches' wait time has passed

  bool wants_gpus() const {
    return gpus_per_node + gpus_per_job + gpus_per_task + gpus_per_socket > 0;
  }
};

}  // namespace rota::sched
