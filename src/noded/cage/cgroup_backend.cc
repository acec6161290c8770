#include "noded/cage/cgroup_backend.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "common/log.h"

namespace rota::noded {

std::string DeviceRule::ToString() const {
  std::string minor_text = minor < 0 ? "*" : std::to_string(minor);
  return std::string(1, type) + " " + std::to_string(major) + ":" + minor_text + " rwm";
}

std::optional<std::vector<uint32_t>> HostCpusOf(const std::vector<uint32_t>& ids,
                                                const std::vector<uint32_t>& host_cpus) {
  std::vector<uint32_t> cpus;
  cpus.reserve(ids.size());
  for (uint32_t id : ids) {
    if (id >= host_cpus.size()) return std::nullopt;
    cpus.push_back(host_cpus[id]);
  }
  return cpus;
}

Result<DeviceRule> DeviceRuleFor(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    return NotFound("cannot stat device " + path + ": " + std::strerror(errno));
  }
  if (!S_ISCHR(st.st_mode) && !S_ISBLK(st.st_mode)) {
    return InvalidArgument(path + " is not a device file");
  }
  return DeviceRule{S_ISCHR(st.st_mode) ? 'c' : 'b', major(st.st_rdev), minor(st.st_rdev)};
}

int CgroupBackend::KillAndRemove(const std::vector<uint32_t>& stale) {
  int removed = 0;
  for (uint32_t id : stale) {
    Status killed = KillAll(id);
    Status gone = Remove(id);
    if (killed.ok() && gone.ok()) {
      ++removed;
    } else {
      spdlog::error("stale cgroup of job {}: {} {}", id, killed.message(), gone.message());
    }
  }
  return removed;
}

std::optional<uint64_t> JobTaskLimit(const conf::CgroupConf& conf) {
  if (conf.max_tasks_per_job) {
    if (*conf.max_tasks_per_job == 0) return std::nullopt;
    return conf.max_tasks_per_job;
  }
  uint64_t host = 0;
  for (const char* file : {"/proc/sys/kernel/threads-max", "/proc/sys/kernel/pid_max"}) {
    std::ifstream in(file);
    uint64_t value = 0;
    if (in >> value && value > 0) host = host == 0 ? value : std::min(host, value);
  }
  if (host == 0) return std::nullopt;
  return std::max<uint64_t>(host / 4, 64);
}

}  // namespace rota::noded
