#include "noded/cage/cgroup_v2.h"

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
#include "noded/cage/bpf_device_filter.h"
#include "noded/cage/cgroup_files.h"
#include "noded/cpu_list.h"

namespace rota::noded {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;
using std::chrono::steady_clock;

// The controllers a cage may use, and what their absence costs.
constexpr std::pair<const char*, const char*> kControllers[] = {
    {"cpuset", "ConstrainCores cannot be enforced, and a job that asks for it will not start"},
    {"memory", "ConstrainRAMSpace cannot be enforced, and a job that asks for it will not start"},
    {"pids", "MaxTasksPerJob cannot be enforced: a job may fork until the host runs out"},
};
constexpr const char* kStepLeaf = "step_batch";

using cgroup_files::Errno;
using cgroup_files::KeyedValue;
using cgroup_files::MakeDir;
using cgroup_files::ReadFile;
using cgroup_files::RemoveTree;
using cgroup_files::WriteFile;

std::vector<std::string> Words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

bool Contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

// /proc/self/mounts writes space, tab, newline and backslash as \ooo.
std::string UnescapeMountField(std::string_view field) {
  auto octal = [](char c) { return c >= '0' && c <= '7'; };
  std::string out;
  for (size_t i = 0; i < field.size(); ++i) {
    if (field[i] == '\\' && i + 3 < field.size() && octal(field[i + 1]) && octal(field[i + 2]) &&
        octal(field[i + 3])) {
      out += static_cast<char>((field[i + 1] - '0') * 64 + (field[i + 2] - '0') * 8 +
                               (field[i + 3] - '0'));
      i += 3;
      continue;
    }
    out += field[i];
  }
  return out;
}

// Whether `controller` is bound to a cgroup v1 hierarchy in `mounts`.
bool BoundToV1(std::string_view mounts, const std::string& controller) {
  for (std::string_view line : Split(mounts, '\n')) {
    std::vector<std::string> fields = Words(std::string(line));
    if (fields.size() < 4 || fields[2] != "cgroup") continue;
    for (std::string_view option : Split(fields[3], ',')) {
      if (option == controller) return true;
    }
  }
  return false;
}

std::vector<uint32_t> HostCpus(const std::string& mount) {
  if (auto cpus = ParseCpuList(ReadFile(mount + "/cpuset.cpus.effective"));
      cpus && !cpus->empty()) {
    return *cpus;
  }
  std::vector<uint32_t> cpus;
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  for (long i = 0; i < online; ++i) cpus.push_back(static_cast<uint32_t>(i));
  return cpus;
}

}  // namespace

std::optional<std::string> FindCgroup2Mount(std::string_view mounts, const std::string& preferred) {
  std::optional<std::string> first;
  for (std::string_view line : Split(mounts, '\n')) {
    std::vector<std::string> fields = Words(std::string(line));
    if (fields.size() < 3 || fields[2] != "cgroup2") continue;
    std::string path = UnescapeMountField(fields[1]);
    if (path == preferred || path.rfind(preferred + "/", 0) == 0) return path;
    if (!first) first = path;
  }
  return first;
}

Result<std::unique_ptr<CgroupV2>> CgroupV2::Open(const std::string& mount,
                                                 const std::string& node) {
  std::error_code ec;
  if (!fs::exists(fs::path(mount) / "cgroup.controllers", ec)) {
    return FailedPrecondition(mount +
                              " is not a cgroup v2 hierarchy (it has no cgroup.controllers)");
  }
  const std::vector<std::string> offered = Words(ReadFile(mount + "/cgroup.controllers"));
  const std::string mounts = ReadFile("/proc/self/mounts");
  std::vector<std::string> present;
  for (const auto& [controller, consequence] : kControllers) {
    if (Contains(offered, controller)) {
      present.push_back(controller);
      continue;
    }
    spdlog::warn(
        "cgroup v2 at {}: no {} controller in this hierarchy{}: {}", mount, controller,
        BoundToV1(mounts, controller) ? " (it is bound to a cgroup v1 hierarchy on this host)" : "",
        consequence);
  }
  // Enabled once, from the mount down to the node, one controller at a time:
  // one the kernel refuses (a mount root that holds processes itself, in a
  // container) is dropped and said so, and does not block the others.
  const std::string node_dir = mount + "/rota/" + node;
  for (const std::string& dir : {mount, mount + "/rota", node_dir}) {
    if (dir != mount) {
      Status made = MakeDir(dir);
      if (!made.ok()) return FailedPrecondition("cgroup v2: " + made.message());
    }
    const std::vector<std::string> enabled = Words(ReadFile(dir + "/cgroup.subtree_control"));
    for (auto it = present.begin(); it != present.end();) {
      Status on = Contains(enabled, *it) ? Status::Ok()
                                         : WriteFile(dir + "/cgroup.subtree_control", "+" + *it);
      if (on.ok()) {
        ++it;
        continue;
      }
      spdlog::warn("cgroup v2 at {}: cannot enable the {} controller ({}){}", mount, *it,
                   on.message(),
                   on.message().find(std::strerror(EBUSY)) != std::string::npos
                       ? ": the cgroup holds processes itself, and cgroup v2 enables "
                         "controllers only above cgroups without processes"
                       : "");
      it = present.erase(it);
    }
  }
  Status devices = ProbeDeviceFilterSupport();
  if (!devices.ok()) {
    spdlog::error(
        "cgroup v2 at {}: device programs cannot be loaded ({}): ConstrainDevices cannot be "
        "enforced, and a job that asks for it will not start",
        mount, devices.message());
  }
  spdlog::info("cgroup v2 at {}: controllers [{}], device control by BPF program {}", mount,
               Join(present, " "), devices.ok() ? "available" : "UNAVAILABLE");
  return std::unique_ptr<CgroupV2>(
      new CgroupV2(mount, node, std::move(present), HostCpus(mount), std::move(devices)));
}

CgroupV2::CgroupV2(std::string mount, std::string node, std::vector<std::string> controllers,
                   std::vector<uint32_t> host_cpus, Status device_control)
    : mount_(std::move(mount)),
      node_(std::move(node)),
      controllers_(std::move(controllers)),
      host_cpus_(std::move(host_cpus)),
      device_control_(std::move(device_control)) {}

std::string CgroupV2::NodeDir() const { return mount_ + "/rota/" + node_; }

std::string CgroupV2::JobDir(uint32_t job_id) const {
  return NodeDir() + "/" + job_dirs_.Find(NodeDir(), job_id);
}

std::string CgroupV2::StepDir(uint32_t job_id) const { return JobDir(job_id) + "/" + kStepLeaf; }

bool CgroupV2::Has(const std::string& controller) const {
  return Contains(controllers_, controller);
}

Status CgroupV2::EnableControllers(const std::string& dir) const {
  if (controllers_.empty()) return Status::Ok();
  const std::string file = dir + "/cgroup.subtree_control";
  const std::vector<std::string> enabled = Words(ReadFile(file));
  std::string change;
  for (const std::string& c : controllers_) {
    if (!Contains(enabled, c)) change += (change.empty() ? "+" : " +") + c;
  }
  if (change.empty()) return Status::Ok();
  return WriteFile(file, change);
}

std::vector<pid_t> CgroupV2::Procs(uint32_t job_id) const {
  std::vector<pid_t> pids;
  auto collect = [&pids](const fs::path& dir) {
    const std::string text = ReadFile((dir / "cgroup.procs").string());
    for (std::string_view line : Split(text, '\n')) {
      if (std::optional<int64_t> pid = ParseInt(Trim(line)); pid && *pid > 0) {
        pids.push_back(static_cast<pid_t>(*pid));
      }
    }
  };
  const fs::path job = JobDir(job_id);
  std::error_code ec;
  if (!fs::exists(job, ec)) return pids;
  collect(job);
  for (auto it = fs::recursive_directory_iterator(job, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    if (it->is_directory(ec)) collect(it->path());
  }
  return pids;
}

bool CgroupV2::Populated(uint32_t job_id) const {
  std::optional<uint64_t> populated = KeyedValue(JobDir(job_id) + "/cgroup.events", "populated");
  if (populated) return *populated != 0;
  return !Procs(job_id).empty();
}

Status CgroupV2::Create(uint32_t job_id, std::optional<uint32_t> uid) {
  const std::string place = job_dirs_.Assign(job_id, uid);
  std::error_code ec;
  if (fs::exists(JobDir(job_id), ec)) {
    // Left by a crash: it may hold processes and an earlier job's device program.
    spdlog::warn("job {}: its cgroup {} is left from before; emptying and removing it", job_id,
                 JobDir(job_id));
    ROTA_RETURN_IF_ERROR(KillAll(job_id));
    ROTA_RETURN_IF_ERROR(Remove(job_id));
  }
  // The levels above the job were made and enabled by Open; made again in
  // case someone removed them since.
  std::vector<std::string> dirs{mount_ + "/rota", NodeDir()};
  if (uid) dirs.push_back(NodeDir() + "/uid_" + std::to_string(*uid));
  dirs.push_back(NodeDir() + "/" + place);
  for (const std::string& dir : dirs) {
    ROTA_RETURN_IF_ERROR(MakeDir(dir));
    ROTA_RETURN_IF_ERROR(EnableControllers(dir));
  }
  return MakeDir(StepDir(job_id));
}

Status CgroupV2::SetLimits(uint32_t job_id, const CageLimits& limits) {
  const std::string job = JobDir(job_id);
  if (limits.cpu_count) {
    if (!Has("cpuset")) {
      return FailedPrecondition("ConstrainCores: the cgroup v2 hierarchy at " + mount_ +
                                " has no cpuset controller");
    }
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
      ROTA_RETURN_IF_ERROR(WriteFile(job + "/cpuset.cpus", FormatCpuList(cpus)));
    }
  }
  if (limits.memory_bytes) {
    if (!Has("memory")) {
      return FailedPrecondition("ConstrainRAMSpace: the cgroup v2 hierarchy at " + mount_ +
                                " has no memory controller");
    }
    ROTA_RETURN_IF_ERROR(WriteFile(job + "/memory.max", std::to_string(*limits.memory_bytes)));
  }
  if (limits.denied_devices) {
    if (!device_control_.ok()) {
      return FailedPrecondition("ConstrainDevices: " + device_control_.message());
    }
    Result<int> program = LoadDeviceFilter(BuildDeviceDenyFilter(*limits.denied_devices));
    if (!program.ok()) return FailedPrecondition("ConstrainDevices: " + program.status().message());
    Status attached = AttachDeviceFilter(*program, job);
    close(*program);
    if (!attached.ok()) return FailedPrecondition("ConstrainDevices: " + attached.message());
  }
  // As under v1: without the pids controller the limit is not enforced.
  if (limits.max_tasks && Has("pids")) {
    ROTA_RETURN_IF_ERROR(WriteFile(job + "/pids.max", std::to_string(*limits.max_tasks)));
  }
  return Status::Ok();
}

Status CgroupV2::AddPid(uint32_t job_id, pid_t pid) {
  return WriteFile(StepDir(job_id) + "/cgroup.procs", std::to_string(pid));
}

Status CgroupV2::Signal(uint32_t job_id, int signal) {
  for (pid_t pid : Procs(job_id)) kill(pid, signal);
  return Status::Ok();
}

uint64_t CgroupV2::OomKills(uint32_t job_id) const {
  if (!Has("memory")) return 0;
  return KeyedValue(JobDir(job_id) + "/memory.events", "oom_kill").value_or(0);
}

std::optional<uint64_t> CgroupV2::PeakMemoryBytes(uint32_t job_id) const {
  if (!Has("memory")) return std::nullopt;
  // memory.peak exists from Linux 5.19; before it, nothing here.
  return ParseUint(Trim(ReadFile(JobDir(job_id) + "/memory.peak")));
}

std::string CgroupV2::CageOf(uint32_t job_id, const std::string& step) const {
  return step.empty() ? StepDir(job_id) : JobDir(job_id) + "/" + step;
}

std::optional<uint64_t> CgroupV2::CurrentMemoryBytes(uint32_t job_id,
                                                     const std::string& step) const {
  if (!Has("memory")) return std::nullopt;
  return ParseUint(Trim(ReadFile(CageOf(job_id, step) + "/memory.current")));
}

std::optional<uint64_t> CgroupV2::StepPeakMemoryBytes(uint32_t job_id,
                                                      const std::string& step) const {
  if (!Has("memory")) return std::nullopt;
  return ParseUint(Trim(ReadFile(CageOf(job_id, step) + "/memory.peak")));
}

std::optional<CageCpuTime> CgroupV2::CpuUsageMicros(uint32_t job_id,
                                                    const std::string& step) const {
  // cpu.stat's usage figures need no controller enabled.
  const std::string stat = CageOf(job_id, step) + "/cpu.stat";
  std::optional<uint64_t> user = KeyedValue(stat, "user_usec");
  std::optional<uint64_t> system = KeyedValue(stat, "system_usec");
  if (!user || !system) return std::nullopt;
  return CageCpuTime{*user, *system};
}

Status CgroupV2::KillAll(uint32_t job_id) {
  const std::string job = JobDir(job_id);
  std::error_code ec;
  if (!fs::exists(job, ec)) return Status::Ok();
  // cgroup.kill kills the whole subtree at once, a process forking meanwhile
  // included. Without it (before Linux 5.14) the job is frozen while it is
  // sent SIGKILL, so that nothing can fork in between.
  const bool has_kill = fs::exists(job + "/cgroup.kill", ec);
  if (has_kill) {
    WriteFile(job + "/cgroup.kill", "1").ok();
  } else if (WriteFile(job + "/cgroup.freeze", "1").ok()) {
    auto deadline = steady_clock::now() + milliseconds(1000);
    while (KeyedValue(job + "/cgroup.events", "frozen").value_or(1) == 0 &&
           steady_clock::now() < deadline) {
      std::this_thread::sleep_for(milliseconds(5));
    }
    Signal(job_id, SIGKILL).ok();
    WriteFile(job + "/cgroup.freeze", "0").ok();
  }
  auto deadline = steady_clock::now() + milliseconds(5000);
  while (Populated(job_id)) {
    if (steady_clock::now() >= deadline) {
      return Internal("job " + std::to_string(job_id) + ": processes survive SIGKILL in " + job);
    }
    std::this_thread::sleep_for(milliseconds(10));
    if (has_kill) WriteFile(job + "/cgroup.kill", "1").ok();
    Signal(job_id, SIGKILL).ok();
  }
  return Status::Ok();
}

Status CgroupV2::Remove(uint32_t job_id) {
  std::error_code ec;
  if (!fs::exists(JobDir(job_id), ec)) return Status::Ok();
  Status removed = RemoveTree(JobDir(job_id));
  if (removed.ok()) job_dirs_.Forget(job_id);
  return removed;
}

int CgroupV2::SweepStale(const std::set<uint32_t>& keep) {
  std::vector<uint32_t> stale;
  for (const auto& [id, place] : CgroupJobDirs::List(NodeDir())) {
    if (keep.count(id) == 0) stale.push_back(id);
  }
  int removed = KillAndRemove(stale);
  CgroupJobDirs::RemoveEmptyUserDirs(NodeDir());
  return removed;
}

}  // namespace rota::noded
