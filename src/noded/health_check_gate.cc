#include "noded/health_check_gate.h"

#include <fmt/format.h>

#include "common/strings.h"

namespace rota::noded {

NodeLoad LoadOf(uint32_t held_cpus, uint32_t node_cpus) {
  if (held_cpus == 0) return NodeLoad::kIdle;
  return held_cpus >= node_cpus ? NodeLoad::kAllocated : NodeLoad::kMixed;
}

Result<HealthCheckGate> HealthCheckGate::FromStates(const std::vector<std::string>& states) {
  HealthCheckGate gate;
  bool any_state_named = false;
  for (const std::string& word : states) {
    const std::string w = ToUpper(Trim(word));
    if (w == "ANY") {
      gate.any_ = true;
    } else if (w == "IDLE") {
      gate.idle_ = true;
    } else if (w == "MIXED") {
      gate.mixed_ = true;
    } else if (w == "ALLOC") {
      gate.alloc_ = true;
    } else if (w == "NONDRAINED_IDLE") {
      gate.nondrained_idle_ = true;
    } else if (w == "CYCLE") {
      gate.cycle_ = true;
      continue;  // A timing, not a state
    } else {
      return InvalidArgument(fmt::format("HealthCheckNodeState: unknown state {}", word));
    }
    any_state_named = true;
  }
  if (!any_state_named) gate.any_ = true;  // CYCLE alone, or nothing: every state
  return gate;
}

bool HealthCheckGate::Due(NodeLoad load, bool drained_by_check) const {
  if (any_) return true;
  switch (load) {
    case NodeLoad::kIdle:
      return idle_ || (nondrained_idle_ && !drained_by_check);
    case NodeLoad::kMixed:
      return mixed_;
    case NodeLoad::kAllocated:
      return alloc_;
  }
  return false;
}

}  // namespace rota::noded
