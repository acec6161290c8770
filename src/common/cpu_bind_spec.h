#pragma once

// srun's --cpu-bind: how each task of a step is bound to CPUs of its node.
//
//   [quiet,|verbose,]none|no|cores|threads|sockets|ldoms|rank|
//                    map_cpu:<list>|mask_cpu:<list>
//
// map_cpu's list holds CPU ids (decimal, or hex with 0x; "3*2" repeats 3
// twice), task i of a node taking entry i (wrapping round); mask_cpu's holds
// hex masks (0x optional), one per task likewise. Shared by srun (which
// refuses a bad value at once) and the node daemon (which applies it).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace rota {

struct CpuBindSpec {
  enum Kind {
    kDefault,  // Not given: the node's default (TaskPlugin)
    kNone,
    kCores,    // The cores of the task's CPUs, every thread of them
    kThreads,  // The task's CPUs exactly
    kSockets,  // The step's CPUs on the sockets of the task's CPUs
    kRank,     // Task i of the node on the step's CPU i
    kMapCpu,
    kMaskCpu,
  };
  Kind kind = kDefault;
  bool verbose = false;
  std::vector<std::vector<uint32_t>> lists;  // map_cpu: one CPU each; mask_cpu: a mask's CPUs
};

// Errors (kInvalidArgument): "Invalid --cpu-bind argument: <text>".
Result<CpuBindSpec> ParseCpuBindSpec(std::string_view text);

// The entries of a map_* list (`map`: ids, decimal or 0x hex) or a mask_*
// list (hex masks, 0x optional), "N*R" repeating an entry R times: one id
// set per entry. nullopt when an entry is malformed. --mem-bind's lists too.
std::optional<std::vector<std::vector<uint32_t>>> ParseBindList(
    const std::vector<std::string_view>& entries, bool map);

// "0x3" for CPUs {0, 1}; "0x0" for none.
std::string CpuMaskHex(const std::vector<uint32_t>& cpus);

}  // namespace rota
