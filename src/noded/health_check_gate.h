#pragma once

// HealthCheckNodeState: in which states of its node rotad runs the
// HealthCheckProgram. The node daemon knows its own load (the CPUs its jobs
// hold); the only drain it knows of is its own, after a failed check.

#include <string>
#include <vector>

#include "common/status.h"

namespace rota::noded {

enum class NodeLoad {
  kIdle,       // No job holds a CPU here
  kMixed,      // Some CPUs held
  kAllocated,  // Every CPU held
};

// Slurm's classification of a node from its held and configured CPUs.
NodeLoad LoadOf(uint32_t held_cpus, uint32_t node_cpus);

class HealthCheckGate {
 public:
  // `states`: HealthCheckNodeState's comma-separated words (ALLOC, ANY, CYCLE,
  // IDLE, MIXED, NONDRAINED_IDLE), any case; none means ANY.
  static Result<HealthCheckGate> FromStates(const std::vector<std::string>& states);

  // Whether a check is due in this state. `drained_by_check`: this daemon
  // drained the node after a failed check (NONDRAINED_IDLE skips it).
  bool Due(NodeLoad load, bool drained_by_check) const;

  // CYCLE: Slurm spreads the nodes' checks over the interval instead of
  // running them all at once; each node daemon then starts at its own offset.
  bool cycle() const { return cycle_; }

 private:
  bool any_ = false;
  bool idle_ = false;
  bool mixed_ = false;
  bool alloc_ = false;
  bool nondrained_idle_ = false;
  bool cycle_ = false;
};

}  // namespace rota::noded
