#include "noded/cgroup_backend.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "common/log.h"
#include "noded/cgroup_v1.h"
#include "noded/cgroup_v2.h"
#include "noded/unenforced_cage.h"

namespace rota::noded {
namespace {

std::unique_ptr<CgroupBackend> Unenforced(const std::string& why) {
  spdlog::critical(
      "NOTHING IS ENFORCED: {}. Jobs run without cgroups: no CPU, memory or device limits, and "
      "processes that leave the job's session are not tracked or killed.",
      why);
  return std::make_unique<UnenforcedCage>();
}

}  // namespace

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

std::unique_ptr<CgroupBackend> MakeCgroupBackend(const conf::CgroupConf& conf,
                                                 const std::string& node) {
  if (geteuid() != 0) return Unenforced("rotad is not running as root");
  const std::string& root = conf.mountpoint;
  // autodetect keeps cgroup v1 wherever its controllers are mounted (a hybrid
  // host included) and takes v2 only where they are not (a pure v2 host).
  if (conf.plugin != "cgroup/v2") {
    // The memory controller is used whatever cgroup.conf says: the peak
    // memory and out-of-memory kills it counts are accounted.
    std::vector<std::string> unneeded;
    if (!JobTaskLimit(conf)) unneeded.push_back("pids");
    if (!conf.constrain_cores) unneeded.push_back("cpuset");
    if (!conf.constrain_devices) unneeded.push_back("devices");
    auto v1 = CgroupV1::Open(root, node, unneeded);
    if (v1.ok()) return std::move(v1).value();
    if (conf.plugin == "cgroup/v1") return Unenforced(v1.status().message());
  }
  std::ifstream in("/proc/self/mounts");
  std::stringstream mounts;
  mounts << in.rdbuf();
  std::optional<std::string> mount = FindCgroup2Mount(mounts.str(), root);
  if (!mount) {
    return Unenforced("CgroupPlugin=" + conf.plugin + ": no cgroup2 file system is mounted" +
                      (conf.plugin == "autodetect"
                           ? " and no usable cgroup v1 controllers are under " + root
                           : ""));
  }
  auto v2 = CgroupV2::Open(*mount, node);
  if (!v2.ok()) return Unenforced(v2.status().message());
  spdlog::info("CgroupPlugin={}: using the cgroup v2 hierarchy at {}", conf.plugin, *mount);
  return std::move(v2).value();
}

}  // namespace rota::noded
