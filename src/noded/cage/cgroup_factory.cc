#include "noded/cage/cgroup_factory.h"

#include <unistd.h>

#include <fstream>
#include <sstream>

#include "common/log.h"
#include "noded/cage/cgroup_v1.h"
#include "noded/cage/cgroup_v2.h"
#include "noded/cage/unenforced_cage.h"

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

std::unique_ptr<CgroupBackend> MakeCgroupBackend(const conf::CgroupConf& conf,
                                                 const std::string& node, bool cpu_time_cage) {
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
    if (!cpu_time_cage) unneeded.push_back("cpuacct");
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
