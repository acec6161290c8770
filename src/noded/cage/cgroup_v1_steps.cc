// The cgroup v1 cage's steps and tasks: <job dir>/step_<s> in every mounted
// hierarchy, and <step>/task_<n> in the cpuset and devices hierarchies for a
// task that narrows its CPUs or devices (cgroup_backend.h).
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <sstream>
#include <thread>

#include "common/log.h"
#include "common/strings.h"
#include "noded/cage/cgroup_files.h"
#include "noded/cage/cgroup_v1.h"
#include "noded/cpu_list.h"

namespace rota::noded {
namespace {

namespace fs = std::filesystem;
using cgroup_files::MakeDir;
using cgroup_files::ReadFile;
using cgroup_files::RemoveTree;
using cgroup_files::WriteFile;

// A new cpuset holds no CPUs or memory nodes until given some; `cpus` when
// set, else its parent's, and its parent's memory nodes.
Status FillCpuset(const std::string& dir, const std::optional<std::vector<uint32_t>>& cpus) {
  const fs::path parent = fs::path(dir).parent_path();
  ROTA_RETURN_IF_ERROR(
      WriteFile(dir + "/cpuset.mems", std::string(Trim(ReadFile(parent / "cpuset.mems")))));
  return WriteFile(dir + "/cpuset.cpus", cpus
                                             ? FormatCpuList(*cpus)
                                             : std::string(Trim(ReadFile(parent / "cpuset.cpus"))));
}

// The pids in `dir` and below it.
std::vector<pid_t> ProcsBelow(const std::string& dir) {
  std::vector<pid_t> pids;
  auto collect = [&pids](const std::string& d) {
    std::istringstream procs(ReadFile(d + "/cgroup.procs"));
    for (pid_t pid; procs >> pid;) pids.push_back(pid);
  };
  std::error_code ec;
  if (!fs::exists(dir, ec)) return pids;
  collect(dir);
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    if (it->is_directory(ec)) collect(it->path().string());
  }
  return pids;
}

}  // namespace

Status CgroupV1::CreateStep(uint32_t job_id, const std::string& step,
                            const StepCageLimits& limits) {
  if ((!limits.cpu_ids.empty() || limits.task_cpusets) && !Has("cpuset")) {
    return FailedPrecondition("ConstrainCores: no cpuset controller mounted");
  }
  if (limits.memory_bytes && !Has("memory")) {
    return FailedPrecondition("ConstrainRAMSpace: no memory controller mounted");
  }
  for (const std::string& c : controllers_) {
    const std::string dir = JobDir(c, job_id) + "/" + step;
    ROTA_RETURN_IF_ERROR(MakeDir(dir));
    if (c == "cpuset") {
      std::optional<std::vector<uint32_t>> cpus;
      if (!limits.cpu_ids.empty()) {
        cpus = HostCpusOf(limits.cpu_ids, host_cpus_);
        if (!cpus) {
          spdlog::warn("job {} {}: ConstrainCores skipped: its CPUs are beyond this host's {}",
                       job_id, step, host_cpus_.size());
        }
      }
      ROTA_RETURN_IF_ERROR(FillCpuset(dir, cpus));
    } else if (c == "memory" && limits.memory_bytes) {
      ROTA_RETURN_IF_ERROR(
          WriteFile(dir + "/memory.limit_in_bytes", std::to_string(*limits.memory_bytes)));
    }
  }
  return Status::Ok();
}

Status CgroupV1::AddStepPid(uint32_t job_id, const std::string& step, pid_t pid) {
  for (const std::string& c : controllers_) {
    ROTA_RETURN_IF_ERROR(
        WriteFile(JobDir(c, job_id) + "/" + step + "/cgroup.procs", std::to_string(pid)));
  }
  return Status::Ok();
}

Status CgroupV1::ConfineTask(uint32_t job_id, const std::string& step, const std::string& task,
                             pid_t pid, const TaskCageLimits& limits) {
  ROTA_RETURN_IF_ERROR(AddStepPid(job_id, step, pid));
  if (!limits.cpu_ids.empty()) {
    if (!Has("cpuset")) return FailedPrecondition("ConstrainCores: no cpuset controller mounted");
    if (std::optional<std::vector<uint32_t>> cpus = HostCpusOf(limits.cpu_ids, host_cpus_)) {
      const std::string dir = JobDir("cpuset", job_id) + "/" + step + "/" + task;
      ROTA_RETURN_IF_ERROR(MakeDir(dir));
      ROTA_RETURN_IF_ERROR(FillCpuset(dir, cpus));
      ROTA_RETURN_IF_ERROR(WriteFile(dir + "/cgroup.procs", std::to_string(pid)));
    }
  }
  if (limits.denied_devices) {
    if (!Has("devices"))
      return FailedPrecondition("ConstrainDevices: no devices controller mounted");
    const std::string dir = JobDir("devices", job_id) + "/" + step + "/" + task;
    ROTA_RETURN_IF_ERROR(MakeDir(dir));
    ROTA_RETURN_IF_ERROR(DenyDevices(dir, *limits.denied_devices, /*reset=*/false));
    ROTA_RETURN_IF_ERROR(WriteFile(dir + "/cgroup.procs", std::to_string(pid)));
  }
  return Status::Ok();
}

uint64_t CgroupV1::StepOomKills(uint32_t job_id, const std::string& step) const {
  if (!Has("memory")) return 0;
  // memory.oom_control holds "oom_kill N" (Linux 4.13 and later); v1 counts
  // the kills of this cgroup only, which holds all of the step's tasks.
  std::istringstream in(ReadFile(JobDir("memory", job_id) + "/" + step + "/memory.oom_control"));
  std::string key;
  uint64_t value = 0;
  while (in >> key >> value) {
    if (key == "oom_kill") return value;
  }
  return 0;
}

Status CgroupV1::RemoveStep(uint32_t job_id, const std::string& step) {
  // Every hierarchy holds each of the step's processes: the tracker's list is
  // complete. Frozen while killed, so that nothing forks in between.
  const std::string tracked = JobDir(tracker_, job_id) + "/" + step;
  const std::string state = tracked + "/freezer.state";
  const bool frozen =
      tracker_ == "freezer" && !ProcsBelow(tracked).empty() && WriteFile(state, "FROZEN").ok();
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  if (frozen) {
    auto thaw_by = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    while (Trim(ReadFile(state)) != "FROZEN" && std::chrono::steady_clock::now() < thaw_by) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    for (pid_t pid : ProcsBelow(tracked)) kill(pid, SIGKILL);
    WriteFile(state, "THAWED").ok();
  }
  for (std::vector<pid_t> left = ProcsBelow(tracked); !left.empty(); left = ProcsBelow(tracked)) {
    if (std::chrono::steady_clock::now() >= deadline) {
      return Internal("job " + std::to_string(job_id) + ": processes survive SIGKILL in " +
                      tracked);
    }
    for (pid_t pid : left) kill(pid, SIGKILL);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  Status first_error;
  for (const std::string& c : controllers_) {
    Status s = RemoveTree(JobDir(c, job_id) + "/" + step);
    if (!s.ok() && first_error.ok()) first_error = s;
  }
  return first_error;
}

}  // namespace rota::noded
