#pragma once

// The cage around one job's processes: a cgroup per job (per controller, for
// cgroup v1) that tracks every process the job starts, daemonised or not,
// limits its CPUs, memory and devices, and lets rotad kill all of it at the
// end. Behind this interface: cgroup v1 (cgroup_v1.h), cgroup v2 (cgroup_v2.h), and an
// unenforced stand-in (unenforced_cage.h) for hosts without root or cgroups.
//
// Implementations are thread-safe for different job ids; calls for one job
// come from that job's own thread (plus Signal from an RPC thread).

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/status.h"
#include "conf/cgroup_conf.h"

namespace rota::noded {

// One line of a device allow list: "c 195:3 rwm"; minor -1 stands for '*'.
struct DeviceRule {
  char type = 'c';  // 'c' or 'b'
  int64_t major = 0;
  int64_t minor = -1;

  std::string ToString() const;  // "c 195:3 rwm", "c 136:* rwm"
  bool operator==(const DeviceRule&) const = default;
};

// What a job's cage enforces; an unset field is not limited.
struct CageLimits {
  std::optional<uint32_t> cpu_count;  // Confine to N CPUs of the host:
  // these (the allocation's CPU ids) when the host has them all, else the first N.
  std::vector<uint32_t> cpu_ids;
  std::optional<uint64_t> memory_bytes;
  std::optional<std::vector<DeviceRule>> allowed_devices;  // Everything else is denied.
};

class CgroupBackend {
 public:
  virtual ~CgroupBackend() = default;

  // "cgroup/v1", "none", ... for logs.
  virtual std::string Name() const = 0;
  // False when nothing is enforced (no root, no cgroups): callers say so loudly.
  virtual bool enforcing() const = 0;

  // Makes the job's cgroups (reusing stale ones of the same id after emptying
  // them), below a level per user when `uid` is given (uid_<uid>/job_<id>).
  virtual Status Create(uint32_t job_id, std::optional<uint32_t> uid = std::nullopt) = 0;
  // Errors name the limit that could not be set. REQUIRES: Create succeeded.
  virtual Status SetLimits(uint32_t job_id, const CageLimits& limits) = 0;
  // Moves `pid` into the job's cgroups; its later children follow it there.
  virtual Status AddPid(uint32_t job_id, pid_t pid) = 0;
  // Sends `signal` to every process of the job.
  virtual Status Signal(uint32_t job_id, int signal) = 0;
  // How many of the job's processes the kernel killed for exceeding its memory
  // limit (0 when unknown). REQUIRES: before Remove.
  virtual uint64_t OomKills(uint32_t job_id) const = 0;
  // The most memory the job's cage has held at once since it was made, in
  // bytes (cgroup v1 memory.max_usage_in_bytes, v2 memory.peak); nullopt when
  // the backend cannot tell (no memory controller, v2 before Linux 5.19, no
  // cgroups). REQUIRES: before Remove.
  virtual std::optional<uint64_t> PeakMemoryBytes(uint32_t /*job_id*/) const {
    return std::nullopt;
  }
  // Kills every process of the job and waits (briefly) until none is left.
  virtual Status KillAll(uint32_t job_id) = 0;
  // Removes the job's cgroups. REQUIRES: KillAll first.
  virtual Status Remove(uint32_t job_id) = 0;
  // Per-task device confinement for job steps (srun --gpus-per-task): moves
  // `pid`, already in the job's cage, into a sub-cage named `task` that allows
  // only `devices` (within what the job allows). Backends that cannot keep
  // the default: the task keeps the job's devices.
  virtual Status ConfineTask(uint32_t /*job_id*/, const std::string& /*task*/, pid_t /*pid*/,
                             const std::vector<DeviceRule>& /*devices*/) {
    return Status::Ok();
  }
  // Removes the sub-cage `task` once its processes are gone.
  virtual Status RemoveTask(uint32_t /*job_id*/, const std::string& /*task*/) {
    return Status::Ok();
  }
  // Kills and removes cages this node left behind (a crash, a kill -9),
  // except those of `keep` (jobs whose rota-stepd still runs them).
  // Returns how many it removed.
  virtual int SweepStale(const std::set<uint32_t>& keep) = 0;

 protected:
  // SweepStale's second half: kills and removes the cages of `stale` (job
  // ids), logging those that resist. Returns how many went.
  int KillAndRemove(const std::vector<uint32_t>& stale);
};

// The backend cgroup.conf and the host call for, for node `node` (whose
// cgroups live under rota/<node>/ so that virtual nodes can share a host).
// Without root or without usable cgroups it returns the unenforced stand-in
// and logs a loud warning saying so.
std::unique_ptr<CgroupBackend> MakeCgroupBackend(const conf::CgroupConf& conf,
                                                 const std::string& node);

// The allow list every job gets under ConstrainDevices=yes: /dev/null, zero,
// full, random, urandom, tty, ptmx and the pseudo-terminals.
std::vector<DeviceRule> BaseDeviceRules();
// The rule that allows the device file at `path` (its type and major:minor).
// Errors: kNotFound / kInvalidArgument when it is missing or not a device.
Result<DeviceRule> DeviceRuleFor(const std::string& path);

}  // namespace rota::noded
