#pragma once

// The cgroup v1 cage: in each of the cpuset, memory, devices, freezer, pids
// and cpuacct hierarchies that are mounted and needed (cpuacct counts the CPU
// time sstat shows, under JobAcctGatherType=jobacct_gather/cgroup; otherwise
// /proc does: proc_cpu_time.h), a job's processes live in
// <mountpoint>/<controller>/rota/<node>/uid_<uid>/job_<id>. The node level
// lets several virtual nodes share a host without touching each other's jobs.
//
// The freezer makes the final kill airtight: the job is frozen, every process
// in it is sent SIGKILL, and it is thawed, so nothing can fork in between.
// Without a freezer the kill is repeated until the cgroup is empty.

#include <memory>
#include <string>
#include <vector>

#include "noded/cage/cgroup_backend.h"
#include "noded/cage/cgroup_job_dirs.h"

namespace rota::noded {

class CgroupV1 : public CgroupBackend {
 public:
  // Uses the controllers mounted under `mountpoint`, but for those in
  // `unneeded` (the configuration constrains nothing with them); the tracker
  // (freezer, else pids) is used always. Each controller used costs every job
  // a cgroup made, joined and removed. Errors: kFailedPrecondition when neither
  // freezer nor pids is mounted (nothing could track the job).
  static Result<std::unique_ptr<CgroupV1>> Open(const std::string& mountpoint,
                                                const std::string& node,
                                                const std::vector<std::string>& unneeded = {});

  std::string Name() const override { return "cgroup/v1"; }
  bool enforcing() const override { return true; }

  Status Create(uint32_t job_id, std::optional<uint32_t> uid = std::nullopt) override;
  Status SetLimits(uint32_t job_id, const CageLimits& limits) override;
  Status AddPid(uint32_t job_id, pid_t pid) override;
  Status Signal(uint32_t job_id, int signal) override;
  uint64_t OomKills(uint32_t job_id) const override;
  std::optional<uint64_t> PeakMemoryBytes(uint32_t job_id) const override;
  std::optional<uint64_t> CurrentMemoryBytes(uint32_t job_id,
                                             const std::string& step) const override;
  std::optional<uint64_t> StepPeakMemoryBytes(uint32_t job_id,
                                              const std::string& step) const override;
  std::optional<CageCpuTime> CpuUsageMicros(uint32_t job_id,
                                            const std::string& step) const override;
  Status KillAll(uint32_t job_id) override;
  Status Remove(uint32_t job_id) override;
  int SweepStale(const std::set<uint32_t>& keep) override;
  // Steps and tasks (cgroup_v1_steps.cc): <job dir>/<step> in every
  // hierarchy; a task cage <step>/<task> only in those it narrows (cpuset,
  // devices), the task staying in its step's in the others.
  Status CreateStep(uint32_t job_id, const std::string& step,
                    const StepCageLimits& limits) override;
  Status AddStepPid(uint32_t job_id, const std::string& step, pid_t pid) override;
  Status ConfineTask(uint32_t job_id, const std::string& step, const std::string& task, pid_t pid,
                     const TaskCageLimits& limits) override;
  uint64_t StepOomKills(uint32_t job_id, const std::string& step) const override;
  Status RemoveStep(uint32_t job_id, const std::string& step) override;

  // <mountpoint>/<controller>/rota/<node>/uid_<uid>/job_<id> (cgroup_job_dirs.h)
  std::string JobDir(const std::string& controller, uint32_t job_id) const;

 private:
  CgroupV1(std::string mountpoint, std::string node, std::vector<std::string> mounted,
           std::vector<std::string> controllers, std::vector<uint32_t> host_cpus);
  // Removes the job dirs of `stale` in the hierarchies mounted but not used
  // (left by a rotad configured otherwise), killing what is in them.
  void SweepUnused(const std::vector<uint32_t>& stale);

  std::string NodeDir(const std::string& controller) const;
  // ConstrainDevices in the devices cgroup `dir`: every device allowed
  // ("a" in devices.allow, for a job's cage that may be reused), then each of
  // `denied` in devices.deny. A new cgroup starts with its parent's rules, so a
  // step or task cage needs only its own denials (`reset` false).
  Status DenyDevices(const std::string& dir, const std::vector<DeviceRule>& denied,
                     bool reset) const;
  bool Has(const std::string& controller) const;
  // The cage of `step` below the job's in `controller`; the job's own for "".
  std::string StepDirOf(const std::string& controller, uint32_t job_id,
                        const std::string& step) const;
  // The processes in the job's cgroup of `controller` and those below it
  // (steps, tasks); empty when it is gone.
  std::vector<pid_t> Procs(const std::string& controller, uint32_t job_id) const;
  // The processes in cgroup `dir` and those below it.
  static std::vector<pid_t> ProcsUnder(const std::string& dir);

  const std::string mountpoint_;
  const std::string node_;
  const std::vector<std::string> mounted_;      // Of the five above
  const std::vector<std::string> controllers_;  // Those of mounted_ that jobs use
  const std::string tracker_;                   // "freezer", else "pids".
  const std::vector<uint32_t> host_cpus_;       // CPUs the root cpuset offers.
  CgroupJobDirs job_dirs_;                      // Thread-safe.
};

}  // namespace rota::noded
