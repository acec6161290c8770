#pragma once

// The cgroup v2 cage. On the unified hierarchy (found in /proc/self/mounts) a
// job lives in <mount>/rota/<node>/uid_<uid>/job_<id>, its processes in the leaf
// job_<id>/step_batch (v2 allows processes only in leaves once controllers
// are enabled below a cgroup); srun's steps are its siblings, step_<s>.
// There is no per-user level: the cage interface does not carry the uid.
// Limits are set on the job level:
//   ConstrainCores    -> cpuset.cpus      (cpuset controller)
//   ConstrainRAMSpace -> memory.max       (memory controller; memory.events
//                                          oom_kill counts the kernel's kills)
//   ConstrainDevices  -> a BPF_PROG_TYPE_CGROUP_DEVICE program attached to the
//                        job's cgroup (bpf_device_filter.h): v2 has no
//                        devices.allow file.
// Process tracking and the final kill need no controller: cgroup.procs of the
// job's subtree, and cgroup.kill (Linux 5.14) which kills the whole subtree at
// once, forks included; without it the job is frozen (cgroup.freeze) first.
//
// A controller may be missing from the hierarchy: on a hybrid host memory,
// cpuset and pids are usually bound to their v1 hierarchies and cannot be
// enabled in v2. Open() then says so in the log, and a job that asks for the
// missing limit fails to start with an error naming it, exactly as the v1
// cage does; nothing pretends to be enforced.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "noded/cage/cgroup_backend.h"
#include "noded/cage/cgroup_job_dirs.h"

namespace rota::noded {

// The cgroup2 mount point in `mounts` (the text of /proc/self/mounts): the one
// at `preferred` or below it, else the first; nullopt when there is none.
std::optional<std::string> FindCgroup2Mount(std::string_view mounts, const std::string& preferred);

class CgroupV2 : public CgroupBackend {
 public:
  // Uses the cgroup2 hierarchy mounted at `mount`: makes rota/<node> there and
  // enables the controllers it offers down to it. Controllers it lacks or
  // cannot enable, and a kernel that refuses device programs, are logged, not
  // errors. Errors: kFailedPrecondition when `mount` is not a cgroup2
  // hierarchy or rota/<node> cannot be made in it.
  static Result<std::unique_ptr<CgroupV2>> Open(const std::string& mount, const std::string& node);

  std::string Name() const override { return "cgroup/v2"; }
  bool enforcing() const override { return true; }

  // Makes a fresh cage: one of the same id left by a crash is emptied and
  // removed first, so that no device program of an earlier job stays attached.
  Status Create(uint32_t job_id, std::optional<uint32_t> uid = std::nullopt) override;
  // REQUIRES: called once after Create (each call attaches another device program).
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
  // Steps and tasks (cgroup_v2_steps.cc): <job dir>/<step>, limits written
  // there; a task cage <step>/<task> is a leaf with its own cpuset.cpus and
  // device program (the kernel runs the job's program and the task's, and a
  // device must pass both).
  Status CreateStep(uint32_t job_id, const std::string& step,
                    const StepCageLimits& limits) override;
  Status AddStepPid(uint32_t job_id, const std::string& step, pid_t pid) override;
  Status ConfineTask(uint32_t job_id, const std::string& step, const std::string& task, pid_t pid,
                     const TaskCageLimits& limits) override;
  uint64_t StepOomKills(uint32_t job_id, const std::string& step) const override;
  Status RemoveStep(uint32_t job_id, const std::string& step) override;

  // <mount>/rota/<node>/job_<id>, and its leaf where the processes live.
  std::string JobDir(uint32_t job_id) const;
  std::string StepDir(uint32_t job_id) const;
  // "memory", "cpuset" or "pids" is enabled for the jobs' cgroups.
  bool Has(const std::string& controller) const;
  // OK when device programs can be loaded, else why not.
  const Status& device_control() const { return device_control_; }

 private:
  CgroupV2(std::string mount, std::string node, std::vector<std::string> controllers,
           std::vector<uint32_t> host_cpus, Status device_control);

  std::string NodeDir() const;
  // The cage of `step` below the job's; the job's leaf (step_batch) for "".
  std::string CageOf(uint32_t job_id, const std::string& step) const;
  // Writes "+c" for each of controllers_ to dir/cgroup.subtree_control (those
  // not enabled there yet).
  Status EnableControllers(const std::string& dir) const;
  // The processes anywhere in the job's subtree (empty when it is gone).
  std::vector<pid_t> Procs(uint32_t job_id) const;
  // Whether any process is left in the job's subtree.
  bool Populated(uint32_t job_id) const;

  const std::string mount_;
  const std::string node_;
  const std::vector<std::string> controllers_;  // Of memory, cpuset, pids: those available.
  const std::vector<uint32_t> host_cpus_;
  const Status device_control_;
  CgroupJobDirs job_dirs_;  // Thread-safe.
};

}  // namespace rota::noded
