#include "noded/cage/cgroup_v1.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "common/log.h"
#include "common/strings.h"
#include "noded/cage/cgroup_files.h"
#include "noded/cage/proc_cpu_time.h"
#include "noded/cpu_list.h"

namespace rota::noded {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;
using std::chrono::steady_clock;

constexpr const char* kControllers[] = {"cpuset",  "memory", "devices",
                                        "freezer", "pids",   "cpuacct"};

using cgroup_files::Errno;
using cgroup_files::MakeDir;
using cgroup_files::ReadFile;
using cgroup_files::RemoveTree;
using cgroup_files::WriteFile;

// A new cpuset starts with no CPUs and no memory nodes, and refuses tasks
// until it has both; give it its parent's.
Status InheritCpuset(const std::string& dir) {
  for (const char* file : {"cpuset.cpus", "cpuset.mems"}) {
    std::string mine = dir + "/" + file;
    if (!Trim(ReadFile(mine)).empty()) continue;
    std::string parent = std::string(Trim(ReadFile(fs::path(dir).parent_path() / file)));
    ROTA_RETURN_IF_ERROR(WriteFile(mine, parent));
  }
  return Status::Ok();
}

std::vector<uint32_t> HostCpus(const std::string& mountpoint) {
  for (const char* file : {"cpuset.effective_cpus", "cpuset.cpus"}) {
    std::string text = ReadFile(mountpoint + "/cpuset/" + file);
    if (auto cpus = ParseCpuList(text); cpus && !cpus->empty()) return *cpus;
  }
  std::vector<uint32_t> cpus;
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  for (long i = 0; i < online; ++i) cpus.push_back(static_cast<uint32_t>(i));
  return cpus;
}

}  // namespace

Result<std::unique_ptr<CgroupV1>> CgroupV1::Open(const std::string& mountpoint,
                                                 const std::string& node,
                                                 const std::vector<std::string>& unneeded) {
  std::vector<std::string> present;
  for (const char* c : kControllers) {
    std::error_code ec;
    if (fs::exists(fs::path(mountpoint) / c / "cgroup.procs", ec)) present.push_back(c);
  }
  auto has = [](const std::vector<std::string>& list, const std::string& c) {
    return std::find(list.begin(), list.end(), c) != list.end();
  };
  if (!has(present, "freezer") && !has(present, "pids")) {
    return FailedPrecondition(
        "neither the freezer nor the pids cgroup v1 controller is mounted "
        "under " +
        mountpoint);
  }
  const std::string tracker = has(present, "freezer") ? "freezer" : "pids";
  std::vector<std::string> used;
  for (const std::string& c : present) {
    if (c == tracker || !has(unneeded, c)) used.push_back(c);
  }
  return std::unique_ptr<CgroupV1>(
      new CgroupV1(mountpoint, node, std::move(present), std::move(used), HostCpus(mountpoint)));
}

CgroupV1::CgroupV1(std::string mountpoint, std::string node, std::vector<std::string> mounted,
                   std::vector<std::string> controllers, std::vector<uint32_t> host_cpus)
    : mountpoint_(std::move(mountpoint)),
      node_(std::move(node)),
      mounted_(std::move(mounted)),
      controllers_(std::move(controllers)),
      tracker_(std::find(controllers_.begin(), controllers_.end(), "freezer") != controllers_.end()
                   ? "freezer"
                   : "pids"),
      host_cpus_(std::move(host_cpus)) {}

std::string CgroupV1::NodeDir(const std::string& controller) const {
  return mountpoint_ + "/" + controller + "/rota/" + node_;
}

std::string CgroupV1::JobDir(const std::string& controller, uint32_t job_id) const {
  // Every hierarchy has the same layout: the tracker's says where.
  return NodeDir(controller) + "/" + job_dirs_.Find(NodeDir(tracker_), job_id);
}

bool CgroupV1::Has(const std::string& controller) const {
  return std::find(controllers_.begin(), controllers_.end(), controller) != controllers_.end();
}

std::vector<pid_t> CgroupV1::Procs(const std::string& controller, uint32_t job_id) const {
  return ProcsUnder(JobDir(controller, job_id));
}

std::vector<pid_t> CgroupV1::ProcsUnder(const std::string& dir) {
  std::vector<pid_t> pids;
  auto collect = [&pids](const std::string& dir) {
    const std::string text = ReadFile(dir + "/cgroup.procs");
    for (std::string_view line : Split(text, '\n')) {
      if (std::optional<int64_t> pid = ParseInt(Trim(line)); pid && *pid > 0) {
        pids.push_back(static_cast<pid_t>(*pid));
      }
    }
  };
  collect(dir);
  // v1 lists only a cgroup's own members: its steps' and tasks' are below.
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    if (it->is_directory(ec)) collect(it->path().string());
  }
  return pids;
}

Status CgroupV1::Create(uint32_t job_id, std::optional<uint32_t> uid) {
  const std::string place = job_dirs_.Assign(job_id, uid);
  for (const std::string& c : controllers_) {
    const std::string base = mountpoint_ + "/" + c + "/rota";
    std::vector<std::string> dirs{base, NodeDir(c)};
    if (uid) dirs.push_back(NodeDir(c) + "/uid_" + std::to_string(*uid));
    dirs.push_back(NodeDir(c) + "/" + place);
    for (const std::string& dir : dirs) {
      ROTA_RETURN_IF_ERROR(MakeDir(dir));
      if (c == "cpuset") ROTA_RETURN_IF_ERROR(InheritCpuset(dir));
    }
  }
  // A cage of the same id left by a crash may still hold processes.
  if (!Procs(tracker_, job_id).empty()) {
    spdlog::warn("job {}: its cgroup still held processes from before; killing them", job_id);
    ROTA_RETURN_IF_ERROR(KillAll(job_id));
  }
  return Status::Ok();
}

Status CgroupV1::SetLimits(uint32_t job_id, const CageLimits& limits) {
  if (limits.cpu_count) {
    if (!Has("cpuset")) return FailedPrecondition("ConstrainCores: no cpuset controller mounted");
    if (*limits.cpu_count > host_cpus_.size()) {
      spdlog::warn("job {}: ConstrainCores skipped: the job holds {} CPUs, this host has only {}",
                   job_id, *limits.cpu_count, host_cpus_.size());
    } else if (*limits.cpu_count > 0) {
      std::vector<uint32_t> cpus(host_cpus_.begin(), host_cpus_.begin() + *limits.cpu_count);
      bool exact = !limits.cpu_ids.empty() &&
                   std::all_of(limits.cpu_ids.begin(), limits.cpu_ids.end(),
                               [&](uint32_t id) { return id < host_cpus_.size(); });
      if (exact) {
        cpus.clear();
        for (uint32_t id : limits.cpu_ids) cpus.push_back(host_cpus_[id]);
      }
      ROTA_RETURN_IF_ERROR(
          WriteFile(JobDir("cpuset", job_id) + "/cpuset.cpus", FormatCpuList(cpus)));
    }
  }
  if (limits.memory_bytes) {
    if (!Has("memory"))
      return FailedPrecondition("ConstrainRAMSpace: no memory controller mounted");
    ROTA_RETURN_IF_ERROR(WriteFile(JobDir("memory", job_id) + "/memory.limit_in_bytes",
                                   std::to_string(*limits.memory_bytes)));
  }
  if (limits.denied_devices) {
    ROTA_RETURN_IF_ERROR(
        DenyDevices(JobDir("devices", job_id), *limits.denied_devices, /*reset=*/true));
  }
  // A host without the pids controller runs jobs unlimited (rotad says so
  // once at start); the limit is protection, not a request of the job's.
  if (limits.max_tasks && Has("pids")) {
    ROTA_RETURN_IF_ERROR(
        WriteFile(JobDir("pids", job_id) + "/pids.max", std::to_string(*limits.max_tasks)));
  }
  return Status::Ok();
}

Status CgroupV1::DenyDevices(const std::string& dir, const std::vector<DeviceRule>& denied,
                             bool reset) const {
  if (!Has("devices")) return FailedPrecondition("ConstrainDevices: no devices controller mounted");
  if (reset) ROTA_RETURN_IF_ERROR(WriteFile(dir + "/devices.allow", "a"));
  for (const DeviceRule& rule : denied) {
    ROTA_RETURN_IF_ERROR(WriteFile(dir + "/devices.deny", rule.ToString()));
  }
  return Status::Ok();
}

Status CgroupV1::AddPid(uint32_t job_id, pid_t pid) {
  for (const std::string& c : controllers_) {
    ROTA_RETURN_IF_ERROR(WriteFile(JobDir(c, job_id) + "/cgroup.procs", std::to_string(pid)));
  }
  return Status::Ok();
}

Status CgroupV1::Signal(uint32_t job_id, int signal) {
  for (pid_t pid : Procs(tracker_, job_id)) kill(pid, signal);
  return Status::Ok();
}

uint64_t CgroupV1::OomKills(uint32_t job_id) const {
  if (!Has("memory")) return 0;
  // memory.oom_control holds "oom_kill N" (Linux 4.13 and later).
  std::ifstream in(JobDir("memory", job_id) + "/memory.oom_control");
  std::string key;
  uint64_t value = 0;
  while (in >> key >> value) {
    if (key == "oom_kill") return value;
  }
  return 0;
}

std::optional<uint64_t> CgroupV1::PeakMemoryBytes(uint32_t job_id) const {
  if (!Has("memory")) return std::nullopt;
  return ParseUint(Trim(ReadFile(JobDir("memory", job_id) + "/memory.max_usage_in_bytes")));
}

std::string CgroupV1::StepDirOf(const std::string& controller, uint32_t job_id,
                                const std::string& step) const {
  const std::string job = JobDir(controller, job_id);
  return step.empty() ? job : job + "/" + step;
}

std::optional<uint64_t> CgroupV1::CurrentMemoryBytes(uint32_t job_id,
                                                     const std::string& step) const {
  if (!Has("memory")) return std::nullopt;
  return ParseUint(Trim(ReadFile(StepDirOf("memory", job_id, step) + "/memory.usage_in_bytes")));
}

std::optional<uint64_t> CgroupV1::StepPeakMemoryBytes(uint32_t job_id,
                                                      const std::string& step) const {
  if (!Has("memory")) return std::nullopt;
  return ParseUint(
      Trim(ReadFile(StepDirOf("memory", job_id, step) + "/memory.max_usage_in_bytes")));
}

std::optional<CageCpuTime> CgroupV1::CpuUsageMicros(uint32_t job_id,
                                                    const std::string& step) const {
  // Without a cpuacct cage (JobAcctGatherType is not jobacct_gather/cgroup),
  // from /proc, as jobacct_gather/linux counts.
  if (!Has("cpuacct")) return ProcessesCpuTime(ProcsUnder(StepDirOf(tracker_, job_id, step)));
  const std::string dir = StepDirOf("cpuacct", job_id, step);
  // cpuacct.usage is exact (ns); cpuacct.stat only says how it splits, in
  // clock ticks.
  std::optional<uint64_t> total_ns = ParseUint(Trim(ReadFile(dir + "/cpuacct.usage")));
  if (!total_ns) return std::nullopt;
  const uint64_t total_us = *total_ns / 1000;
  const uint64_t user = cgroup_files::KeyedValue(dir + "/cpuacct.stat", "user").value_or(0);
  const uint64_t system = cgroup_files::KeyedValue(dir + "/cpuacct.stat", "system").value_or(0);
  CageCpuTime time;
  time.user_us = user + system == 0 ? total_us
                                    : static_cast<uint64_t>(static_cast<double>(total_us) *
                                                            static_cast<double>(user) /
                                                            static_cast<double>(user + system));
  time.system_us = total_us - time.user_us;
  return time;
}

Status CgroupV1::KillAll(uint32_t job_id) {
  const bool freezer = tracker_ == "freezer";
  const std::string state = JobDir("freezer", job_id) + "/freezer.state";
  // An empty cage stays empty (nothing in it can fork), so it needs no
  // freezing: most jobs end with their script, and freezing is not free (the
  // kernel patches its code and interrupts every CPU on each freeze and thaw).
  if (freezer && !Procs(tracker_, job_id).empty() && WriteFile(state, "FROZEN").ok()) {
    // Freezing is asynchronous: wait until every task stopped (or give up and
    // kill anyway; the loop below catches late forks).
    auto deadline = steady_clock::now() + milliseconds(1000);
    while (Trim(ReadFile(state)) != "FROZEN" && steady_clock::now() < deadline) {
      std::this_thread::sleep_for(milliseconds(5));
    }
    Signal(job_id, SIGKILL).ok();
    WriteFile(state, "THAWED").ok();
  }
  auto deadline = steady_clock::now() + milliseconds(5000);
  while (true) {
    bool empty = true;
    for (const std::string& c : controllers_) {
      std::vector<pid_t> left = Procs(c, job_id);
      for (pid_t pid : left) kill(pid, SIGKILL);
      empty = empty && left.empty();
    }
    if (empty) return Status::Ok();
    if (steady_clock::now() >= deadline) {
      return Internal("job " + std::to_string(job_id) + ": processes survive SIGKILL in " +
                      JobDir(tracker_, job_id));
    }
    std::this_thread::sleep_for(milliseconds(10));
  }
}

Status CgroupV1::Remove(uint32_t job_id) {
  Status first_error;
  for (const std::string& c : controllers_) {
    // Task sub-cages (ConfineTask) go first; their processes are gone with the job's.
    Status s = RemoveTree(JobDir(c, job_id));
    if (!s.ok() && first_error.ok()) first_error = s;
  }
  if (first_error.ok()) job_dirs_.Forget(job_id);
  return first_error;
}

int CgroupV1::SweepStale(const std::set<uint32_t>& keep) {
  std::vector<uint32_t> stale;
  for (const std::string& c : mounted_) {
    for (const auto& [id, place] : CgroupJobDirs::List(NodeDir(c))) {
      if (keep.count(id) == 0) stale.push_back(id);
    }
  }
  std::sort(stale.begin(), stale.end());
  stale.erase(std::unique(stale.begin(), stale.end()), stale.end());
  int removed = KillAndRemove(stale);
  SweepUnused(stale);
  for (const std::string& c : mounted_) CgroupJobDirs::RemoveEmptyUserDirs(NodeDir(c));
  return removed;
}

void CgroupV1::SweepUnused(const std::vector<uint32_t>& stale) {
  for (const std::string& c : mounted_) {
    if (Has(c)) continue;
    for (const auto& [id, place] : CgroupJobDirs::List(NodeDir(c))) {
      if (!std::binary_search(stale.begin(), stale.end(), id)) continue;
      const std::string dir = NodeDir(c) + "/" + place;
      const std::string procs = ReadFile(dir + "/cgroup.procs");
      for (std::string_view line : Split(procs, '\n')) {
        if (std::optional<int64_t> pid = ParseInt(Trim(line)); pid && *pid > 0) {
          kill(static_cast<pid_t>(*pid), SIGKILL);
        }
      }
      // RemoveTree waits for a process killed a moment ago to leave.
      Status removed = RemoveTree(dir);
      if (!removed.ok()) spdlog::error("stale cgroup of job {}: {}", id, removed.message());
    }
  }
}

}  // namespace rota::noded
