#pragma once

// The process resource limits Slurm propagates from the submitting command to
// a job's tasks (slurm.conf PropagateResourceLimits / PropagateResourceLimitsExcept),
// by Slurm's names. The commands capture their own soft limits; the node
// daemon sets them as the tasks' soft limits.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rota {

// Slurm's limit names, in Slurm's order: AS, CORE, CPU, DATA, FSIZE, MEMLOCK,
// NOFILE, NPROC, RSS, STACK.
const std::vector<std::string_view>& ResourceLimitNames();

// The RLIMIT_* resource a name stands for (case-insensitive); none when the
// name is not one of ResourceLimitNames().
std::optional<int> ResourceOfLimit(std::string_view name);

// The limits to propagate, given the two keys as parsed (empty: not set).
// `propagate` may hold ALL or NONE; unset means ALL. `except` removes limits
// from ALL (Slurm allows only one of the keys; the parser enforces that).
std::vector<std::string> PropagatedLimitNames(const std::vector<std::string>& propagate,
                                              const std::vector<std::string>& except);

// One captured limit: the name and the soft value (RLIM_INFINITY as UINT64_MAX).
struct CapturedLimit {
  std::string name;
  uint64_t soft = 0;
};

// This process's soft limits for `names` (unknown names are skipped).
std::vector<CapturedLimit> CaptureSoftLimits(const std::vector<std::string>& names);

}  // namespace rota
