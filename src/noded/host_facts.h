#pragma once

// What a node daemon reports about its host when it registers: boot time,
// CPUs and memory, read from /proc.

#include <cstdint>
#include <optional>
#include <string_view>

namespace rota::noded {

struct HostFacts {
  int64_t boot_time = 0;  // Unix seconds; 0 when unknown.
  uint32_t cpus = 0;
  uint64_t memory_mb = 0;
};

// The btime line of /proc/stat's text.
std::optional<int64_t> ParseBootTime(std::string_view proc_stat);
// MemTotal of /proc/meminfo's text, in MiB.
std::optional<uint64_t> ParseMemTotalMb(std::string_view meminfo);

// Reads this host's facts; fields that cannot be read stay 0.
HostFacts ReadHostFacts();

}  // namespace rota::noded
