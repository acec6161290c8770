#pragma once

// What a node daemon reports about its host when it registers: boot time,
// CPUs and their shape (sockets, cores, threads) from hwloc, memory, read
// from /proc where hwloc cannot tell.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rota::noded {

struct HostFacts {
  int64_t boot_time = 0;  // Unix seconds; 0 when unknown.
  uint32_t cpus = 0;
  uint32_t sockets = 0;
  uint32_t cores_per_socket = 0;
  uint32_t threads_per_core = 0;
  uint64_t memory_mb = 0;
};

// The btime line of /proc/stat's text.
std::optional<int64_t> ParseBootTime(std::string_view proc_stat);
// MemTotal of /proc/meminfo's text, in MiB.
std::optional<uint64_t> ParseMemTotalMb(std::string_view meminfo);

// Reads this host's facts; fields that cannot be read stay 0. The CPU shape
// comes from hwloc, or from /proc/cpuinfo when hwloc fails (`hwloc_error`,
// when given, then says why; it is cleared otherwise).
HostFacts ReadHostFacts(std::string* hwloc_error = nullptr);

}  // namespace rota::noded
