#pragma once

// The stand-in cage for hosts where rotad cannot use cgroups (not root, no
// usable cgroups mounted). It enforces nothing
// and says so (enforcing() is false); it tracks a job by its session only: the
// batch script leads a new session and process group, so signals and the final
// kill reach the group, but a process that leaves the group escapes.

#include <map>
#include <mutex>

#include "noded/cage/cgroup_backend.h"

namespace rota::noded {

class UnenforcedCage : public CgroupBackend {
 public:
  std::string Name() const override { return "none"; }
  bool enforcing() const override { return false; }
  uint64_t OomKills(uint32_t) const override { return 0; }  // No memory limit to exceed.

  Status Create(uint32_t, std::optional<uint32_t> = std::nullopt) override { return Status::Ok(); }
  Status SetLimits(uint32_t, const CageLimits&) override { return Status::Ok(); }
  // REQUIRES: `pid` leads its own process group (the launcher calls setsid).
  Status AddPid(uint32_t job_id, pid_t pid) override;
  Status Signal(uint32_t job_id, int signal) override;
  Status KillAll(uint32_t job_id) override;
  Status Remove(uint32_t job_id) override;
  int SweepStale(const std::set<uint32_t>&) override { return 0; }

 private:
  std::mutex mu_;
  std::map<uint32_t, pid_t> groups_;  // job id -> process group id. Guarded by mu_.
};

}  // namespace rota::noded
