#include "noded/host_facts.h"

#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

#include "common/strings.h"
#include "noded/cpu_topology.h"

namespace rota::noded {
namespace {

// The value after `key` on the line that starts with it, e.g. "btime 1700000000".
std::optional<std::string_view> FieldAfter(std::string_view text, std::string_view key) {
  for (std::string_view line : Split(text, '\n')) {
    if (line.substr(0, key.size()) == key) return Trim(line.substr(key.size()));
  }
  return std::nullopt;
}

std::string ReadWholeFile(const char* path) {
  std::ifstream in(path);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

}  // namespace

std::optional<int64_t> ParseBootTime(std::string_view proc_stat) {
  std::optional<std::string_view> v = FieldAfter(proc_stat, "btime ");
  if (!v) return std::nullopt;
  return ParseInt(*v);
}

std::optional<uint64_t> ParseMemTotalMb(std::string_view meminfo) {
  std::optional<std::string_view> v = FieldAfter(meminfo, "MemTotal:");
  if (!v) return std::nullopt;
  std::string_view number = v->substr(0, v->find(' '));  // "16318132 kB"
  std::optional<uint64_t> kb = ParseUint(number);
  if (!kb) return std::nullopt;
  return *kb / 1024;
}

HostFacts ReadHostFacts(std::string* hwloc_error) {
  HostFacts facts;
  facts.boot_time = ParseBootTime(ReadWholeFile("/proc/stat")).value_or(0);
  // MemTotal first: it is what the kernel can hand out, and hwloc's sum over
  // NUMA nodes misses memory on some virtual machines.
  facts.memory_mb = ParseMemTotalMb(ReadWholeFile("/proc/meminfo")).value_or(0);
  if (hwloc_error != nullptr) hwloc_error->clear();
  std::optional<CpuTopology> shape;
  if (Result<CpuTopology> hwloc = ReadCpuTopologyWithHwloc(); hwloc.ok()) {
    shape = *hwloc;
    if (facts.memory_mb == 0) facts.memory_mb = hwloc->memory_mb;
  } else {
    if (hwloc_error != nullptr) *hwloc_error = hwloc.status().message();
    shape = ParseCpuInfoTopology(ReadWholeFile("/proc/cpuinfo"));
  }
  if (shape) {
    facts.cpus = shape->cpus;
    facts.sockets = shape->sockets;
    facts.cores_per_socket = shape->cores_per_socket;
    facts.threads_per_core = shape->threads_per_core;
  }
  if (facts.cpus == 0) {
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    facts.cpus = online > 0 ? static_cast<uint32_t>(online) : 0;
  }
  return facts;
}

}  // namespace rota::noded
