#include "noded/cpu_topology.h"

#include <hwloc.h>

#include <set>
#include <utility>

#include "common/strings.h"

namespace rota::noded {
namespace {

// Counts that cannot be zero once there is a CPU: a VM may show no package
// or core objects, and then each CPU is its own core in one socket.
CpuTopology Shape(uint32_t cpus, uint32_t sockets, uint32_t cores) {
  CpuTopology t;
  t.cpus = cpus;
  t.sockets = sockets > 0 ? sockets : 1;
  if (cores == 0 || cores > cpus) cores = cpus;
  t.cores_per_socket = cores / t.sockets > 0 ? cores / t.sockets : 1;
  t.threads_per_core = cpus / cores > 0 ? cpus / cores : 1;
  return t;
}

}  // namespace

Result<CpuTopology> ReadCpuTopologyWithHwloc() {
  hwloc_topology_t topology = nullptr;
  if (hwloc_topology_init(&topology) != 0) return Internal("hwloc: cannot initialise a topology");
  hwloc_topology_set_flags(topology, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
  if (hwloc_topology_load(topology) != 0) {
    hwloc_topology_destroy(topology);
    return Internal("hwloc: cannot load this host's topology");
  }
  auto count = [&](hwloc_obj_type_t type) {
    int n = hwloc_get_nbobjs_by_type(topology, type);
    return n > 0 ? static_cast<uint32_t>(n) : 0u;
  };
  uint32_t cpus = count(HWLOC_OBJ_PU);
  uint32_t sockets = count(HWLOC_OBJ_PACKAGE);
  uint32_t cores = count(HWLOC_OBJ_CORE);
  uint64_t memory_bytes = hwloc_get_root_obj(topology)->total_memory;
  hwloc_topology_destroy(topology);
  if (cpus == 0) return Internal("hwloc: found no CPU");
  CpuTopology t = Shape(cpus, sockets, cores);
  t.memory_mb = memory_bytes / (1024 * 1024);
  return t;
}

std::optional<CpuTopology> ParseCpuInfoTopology(std::string_view cpuinfo) {
  uint32_t cpus = 0;
  std::set<std::string> sockets;
  std::set<std::pair<std::string, std::string>> cores;
  std::string socket;  // Of the entry being read.
  std::string core;
  auto end_entry = [&] {
    if (!socket.empty()) sockets.insert(socket);
    if (!core.empty()) cores.insert({socket, core});
    socket.clear();
    core.clear();
  };
  for (std::string_view line : Split(cpuinfo, '\n')) {
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view key = Trim(line.substr(0, colon));
    std::string value(Trim(line.substr(colon + 1)));
    if (key == "processor") {
      end_entry();
      ++cpus;
    } else if (key == "physical id") {
      socket = value;
    } else if (key == "core id") {
      core = value;
    }
  }
  end_entry();
  if (cpus == 0) return std::nullopt;
  return Shape(cpus, static_cast<uint32_t>(sockets.size()), static_cast<uint32_t>(cores.size()));
}

}  // namespace rota::noded
