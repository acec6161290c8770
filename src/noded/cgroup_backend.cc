#include "noded/cgroup_backend.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "common/log.h"
#include "noded/cgroup_v1.h"
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

std::vector<DeviceRule> BaseDeviceRules() {
  return {
      {'c', 1, 3},     // /dev/null
      {'c', 1, 5},     // /dev/zero
      {'c', 1, 7},     // /dev/full
      {'c', 1, 8},     // /dev/random
      {'c', 1, 9},     // /dev/urandom
      {'c', 5, 0},     // /dev/tty
      {'c', 5, 2},     // /dev/ptmx
      {'c', 136, -1},  // /dev/pts/*
  };
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

std::unique_ptr<CgroupBackend> MakeCgroupBackend(const conf::CgroupConf& conf,
                                                 const std::string& node) {
  if (geteuid() != 0) return Unenforced("rotad is not running as root");
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path root = conf.mountpoint;
  const bool v2_only = fs::exists(root / "cgroup.controllers", ec);
  const bool v1 = fs::exists(root / "freezer" / "cgroup.procs", ec) ||
                  fs::exists(root / "memory" / "cgroup.procs", ec);
  if (conf.plugin == "cgroup/v2" || (conf.plugin != "cgroup/v1" && v2_only && !v1)) {
    return Unenforced("cgroup v2 is not supported yet (CgroupPlugin=" + conf.plugin + ", " +
                      root.string() + ")");
  }
  if (!v1) return Unenforced("no cgroup v1 controllers are mounted under " + root.string());
  auto backend = CgroupV1::Open(root.string(), node);
  if (!backend.ok()) return Unenforced(backend.status().message());
  return std::move(backend).value();
}

}  // namespace rota::noded
