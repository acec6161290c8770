// The cgroup v2 cage's steps and tasks: <job dir>/step_<s>, and below it a
// leaf per task when the step asks for task cages (cgroup_backend.h).
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <sstream>
#include <thread>

#include "common/log.h"
#include "common/strings.h"
#include "noded/cage/bpf_device_filter.h"
#include "noded/cage/cgroup_files.h"
#include "noded/cage/cgroup_v2.h"
#include "noded/cpu_list.h"

namespace rota::noded {
namespace {

namespace fs = std::filesystem;
using cgroup_files::KeyedValue;
using cgroup_files::MakeDir;
using cgroup_files::ReadFile;
using cgroup_files::RemoveTree;
using cgroup_files::WriteFile;

bool DirPopulated(const std::string& dir) {
  return KeyedValue(dir + "/cgroup.events", "populated").value_or(0) != 0;
}

// Sends SIGKILL to every process listed below `dir` (v2 cgroup.procs lists a
// cgroup's own members only).
void KillEveryProcessIn(const std::string& dir) {
  auto kill_listed = [](const std::string& d) {
    std::istringstream procs(ReadFile(d + "/cgroup.procs"));
    for (pid_t pid; procs >> pid;) kill(pid, SIGKILL);
  };
  kill_listed(dir);
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    if (it->is_directory(ec)) kill_listed(it->path().string());
  }
}

}  // namespace

Status CgroupV2::CreateStep(uint32_t job_id, const std::string& step,
                            const StepCageLimits& limits) {
  const std::string dir = JobDir(job_id) + "/" + step;
  ROTA_RETURN_IF_ERROR(MakeDir(dir));
  if (!limits.cpu_ids.empty() || limits.task_cpusets) {
    if (!Has("cpuset")) {
      return FailedPrecondition("ConstrainCores: the cgroup v2 hierarchy at " + mount_ +
                                " has no cpuset controller");
    }
  }
  if (!limits.cpu_ids.empty()) {
    if (std::optional<std::vector<uint32_t>> cpus = HostCpusOf(limits.cpu_ids, host_cpus_)) {
      ROTA_RETURN_IF_ERROR(WriteFile(dir + "/cpuset.cpus", FormatCpuList(*cpus)));
    } else {
      spdlog::warn("job {} {}: ConstrainCores skipped: its CPUs are beyond this host's {}", job_id,
                   step, host_cpus_.size());
    }
  }
  if (limits.memory_bytes) {
    if (!Has("memory")) {
      return FailedPrecondition("ConstrainRAMSpace: the cgroup v2 hierarchy at " + mount_ +
                                " has no memory controller");
    }
    ROTA_RETURN_IF_ERROR(WriteFile(dir + "/memory.max", std::to_string(*limits.memory_bytes)));
  }
  // Tasks narrow CPUs in leaves of their own: the step hands cpuset down
  // (and, in v2's rule, holds no process itself from then on).
  if (limits.task_cpusets)
    ROTA_RETURN_IF_ERROR(WriteFile(dir + "/cgroup.subtree_control", "+cpuset"));
  return Status::Ok();
}

Status CgroupV2::AddStepPid(uint32_t job_id, const std::string& step, pid_t pid) {
  return WriteFile(JobDir(job_id) + "/" + step + "/cgroup.procs", std::to_string(pid));
}

Status CgroupV2::ConfineTask(uint32_t job_id, const std::string& step, const std::string& task,
                             pid_t pid, const TaskCageLimits& limits) {
  const std::string dir = JobDir(job_id) + "/" + step + "/" + task;
  ROTA_RETURN_IF_ERROR(MakeDir(dir));
  if (!limits.cpu_ids.empty()) {
    if (!Has("cpuset")) {
      return FailedPrecondition("ConstrainCores: the cgroup v2 hierarchy at " + mount_ +
                                " has no cpuset controller");
    }
    if (std::optional<std::vector<uint32_t>> cpus = HostCpusOf(limits.cpu_ids, host_cpus_)) {
      ROTA_RETURN_IF_ERROR(WriteFile(dir + "/cpuset.cpus", FormatCpuList(*cpus)));
    }
  }
  if (limits.denied_devices) {
    if (!device_control_.ok()) {
      return FailedPrecondition("ConstrainDevices: " + device_control_.message());
    }
    Result<int> program = LoadDeviceFilter(BuildDeviceDenyFilter(*limits.denied_devices));
    if (!program.ok()) return FailedPrecondition("ConstrainDevices: " + program.status().message());
    Status attached = AttachDeviceFilter(*program, dir);
    close(*program);
    if (!attached.ok()) return FailedPrecondition("ConstrainDevices: " + attached.message());
  }
  return WriteFile(dir + "/cgroup.procs", std::to_string(pid));
}

uint64_t CgroupV2::StepOomKills(uint32_t job_id, const std::string& step) const {
  if (!Has("memory")) return 0;
  // memory.events counts the step's task cages' kills too.
  return KeyedValue(JobDir(job_id) + "/" + step + "/memory.events", "oom_kill").value_or(0);
}

Status CgroupV2::RemoveStep(uint32_t job_id, const std::string& step) {
  const std::string dir = JobDir(job_id) + "/" + step;
  std::error_code ec;
  if (!fs::exists(dir, ec)) return Status::Ok();
  // What the tasks left behind (daemonised children) goes with the step.
  const bool has_kill = fs::exists(dir + "/cgroup.kill", ec);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (DirPopulated(dir)) {
    if (has_kill) WriteFile(dir + "/cgroup.kill", "1").ok();
    KillEveryProcessIn(dir);
    if (std::chrono::steady_clock::now() >= deadline) {
      return Internal("job " + std::to_string(job_id) + ": processes survive SIGKILL in " + dir);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return RemoveTree(dir);
}

}  // namespace rota::noded
