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

// One device, or all minors of a major, as a devices.allow / devices.deny line:
// "c 195:3 rwm"; minor -1 stands for '*'.
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
  // ConstrainDevices: the devices the job may not open (its node's GRES
  // files it was not given, gres_device_files.h); every other device stays
  // open, as under Slurm. Unset: devices are not constrained.
  std::optional<std::vector<DeviceRule>> denied_devices;
  // The most processes and threads the job may have here (pids.max).
  std::optional<uint64_t> max_tasks;
};

// What a step's cage (job_<id>/step_<s>, below its job's) enforces within the
// job's; an unset field leaves the job's limit alone.
struct StepCageLimits {
  // ConstrainCores: the step's CPUs on this node (allocation ids, as
  // CageLimits::cpu_ids); empty: the job's.
  std::vector<uint32_t> cpu_ids;
  std::optional<uint64_t> memory_bytes;  // ConstrainRAMSpace: the step's memory here
  // Every task of the step gets a cage of its own below the step's
  // (ConfineTask), not only those that narrow something: cgroup v2 lets
  // processes live only in leaves once a level hands controllers down.
  bool task_cages = false;
  // Some task cage narrows CPUs (the step's level hands cpuset down).
  bool task_cpusets = false;
};

// What a task's cage (step_<s>/task_<n>) narrows within its step's.
struct TaskCageLimits {
  std::vector<uint32_t> cpu_ids;  // Allocation ids; empty: the step's CPUs
  // Devices denied to the task besides its step's (the job's GPUs not bound
  // to it); unset: the step's devices.
  std::optional<std::vector<DeviceRule>> denied_devices;
};

// CPU time a cage's processes used, in microseconds.
struct CageCpuTime {
  uint64_t user_us = 0;
  uint64_t system_us = 0;
  bool operator==(const CageCpuTime&) const = default;
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
  // Live figures of a running step's cage for sstat: `step` is a step cage
  // name (StepCageName) or "" for the job's own processes (its batch step:
  // cgroup v2's step_batch leaf; under v1 the job's cage, which holds its
  // srun steps' cages too). nullopt when the backend cannot tell (no such
  // controller, no cgroups, the cage is gone).
  //
  // The memory its processes hold now, in bytes (v1 memory.usage_in_bytes,
  // v2 memory.current).
  virtual std::optional<uint64_t> CurrentMemoryBytes(uint32_t /*job_id*/,
                                                     const std::string& /*step*/) const {
    return std::nullopt;
  }
  // The most it has held at once (v1 memory.max_usage_in_bytes, v2
  // memory.peak from Linux 5.19).
  virtual std::optional<uint64_t> StepPeakMemoryBytes(uint32_t /*job_id*/,
                                                      const std::string& /*step*/) const {
    return std::nullopt;
  }
  // The CPU time its processes (and their reaped children) used so far
  // (v1 cpuacct.usage split as cpuacct.stat splits it, v2 cpu.stat).
  virtual std::optional<CageCpuTime> CpuUsageMicros(uint32_t /*job_id*/,
                                                    const std::string& /*step*/) const {
    return std::nullopt;
  }
  // Kills every process of the job and waits (briefly) until none is left.
  virtual Status KillAll(uint32_t job_id) = 0;
  // Removes the job's cgroups. REQUIRES: KillAll first.
  virtual Status Remove(uint32_t job_id) = 0;
  // Job steps (srun) on this node each have a cage below the job's, named as
  // Slurm names them ("step_0", "step_batch", "step_extern"), and optionally
  // a cage per task below it ("task_0"). Backends without cgroups keep these
  // defaults: nothing is made, tasks join the job (AddPid).
  //
  // Makes the step's cage with `limits`. Errors name the limit that could not
  // be set. REQUIRES: the job's cage exists (made by this process or another).
  virtual Status CreateStep(uint32_t /*job_id*/, const std::string& /*step*/,
                            const StepCageLimits& /*limits*/) {
    return Status::Ok();
  }
  // Moves `pid` into the step's cage. REQUIRES: CreateStep, without task_cages.
  virtual Status AddStepPid(uint32_t job_id, const std::string& /*step*/, pid_t pid) {
    return AddPid(job_id, pid);
  }
  // Moves `pid` into the task cage `task` below the step's, made with
  // `limits` (srun --cpu-bind under ConstrainCores, --gpus-per-task under
  // ConstrainDevices). REQUIRES: CreateStep, with task_cages.
  virtual Status ConfineTask(uint32_t /*job_id*/, const std::string& /*step*/,
                             const std::string& /*task*/, pid_t /*pid*/,
                             const TaskCageLimits& /*limits*/) {
    return Status::Ok();
  }
  // How many of the step's processes the kernel killed for exceeding a memory
  // limit (0 when unknown). REQUIRES: before RemoveStep.
  virtual uint64_t StepOomKills(uint32_t /*job_id*/, const std::string& /*step*/) const {
    return 0;
  }
  // Kills what is left in the step's cage and removes it with its task cages.
  virtual Status RemoveStep(uint32_t /*job_id*/, const std::string& /*step*/) {
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

// The per-job task limit cgroup.conf asks for: MaxTasksPerJob, or a quarter
// of the host's own limit (the smaller of kernel.threads-max and
// kernel.pid_max) when it is unset; nullopt for none (MaxTasksPerJob=0).
std::optional<uint64_t> JobTaskLimit(const conf::CgroupConf& conf);

// The host CPUs that allocation CPU ids stand for on a host offering
// `host_cpus` (id i is the i-th); nullopt when an id is beyond the host (a
// virtual node larger than its host: its CPUs cannot be confined).
std::optional<std::vector<uint32_t>> HostCpusOf(const std::vector<uint32_t>& ids,
                                                const std::vector<uint32_t>& host_cpus);
// The rule that allows the device file at `path` (its type and major:minor).
// Errors: kNotFound / kInvalidArgument when it is missing or not a device.
Result<DeviceRule> DeviceRuleFor(const std::string& path);

}  // namespace rota::noded
