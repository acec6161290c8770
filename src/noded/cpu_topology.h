#pragma once

// The shape of a host's processors (sockets, cores, threads), as slurm.conf's
// NodeName line describes a node: from hwloc, or from /proc/cpuinfo when
// hwloc cannot tell.

#include <cstdint>
#include <optional>
#include <string_view>

#include "common/status.h"

namespace rota::noded {

struct CpuTopology {
  uint32_t sockets = 0;
  uint32_t cores_per_socket = 0;
  uint32_t threads_per_core = 0;
  uint32_t cpus = 0;       // Logical CPUs (hardware threads), all of them.
  uint64_t memory_mb = 0;  // 0 when the source does not tell.

  bool operator==(const CpuTopology&) const = default;
};

// The whole machine as hwloc sees it, CPUs this process may not use included
// (a daemon in a narrow cpuset still reports the node). Errors: hwloc could
// not load a topology, or found no CPU.
Result<CpuTopology> ReadCpuTopologyWithHwloc();

// From /proc/cpuinfo's text: CPUs are its "processor" entries, sockets its
// distinct "physical id"s, cores its distinct (physical id, core id) pairs.
// Entries without ids count as one socket of one-thread cores. memory_mb
// stays 0. nullopt when there is no processor entry.
std::optional<CpuTopology> ParseCpuInfoTopology(std::string_view cpuinfo);

}  // namespace rota::noded
