#pragma once

// srun's --mem-bind: to which NUMA nodes each task of a step binds its memory.
//
//   [quiet,|verbose,][prefer,]none|no|rank|local|map_mem:<list>|mask_mem:<list>
//                    [,sort|nosort]
//
// map_mem's list holds NUMA node ids (decimal, or hex with 0x; "1*2" repeats
// 1 twice), task i of a node taking entry i (wrapping round); mask_mem's holds
// hex masks of nodes; map_ldom and mask_ldom are the same (a locality domain
// is a NUMA node here). prefer asks the kernel to prefer the first node rather
// than bind to them; sort and nosort (the page allocator's order) are taken
// and change nothing. Shared by srun and sbatch/salloc (which refuse a bad
// value at once) and the node daemon (which applies it).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace rota {

struct MemBindSpec {
  enum Kind {
    kNone,   // Not given, or none: the kernel's default policy
    kRank,   // Task i of the node on NUMA node i
    kLocal,  // The NUMA nodes of the task's CPUs
    kMapMem,
    kMaskMem,
  };
  Kind kind = kNone;
  bool verbose = false;
  bool prefer = false;
  std::vector<std::vector<uint32_t>> lists;  // map_mem: one node each; mask_mem: a mask's nodes
};

// Errors (kInvalidArgument): "Invalid --mem-bind argument: <text>".
Result<MemBindSpec> ParseMemBindSpec(std::string_view text);

}  // namespace rota
