#include "noded/cage/cgroup_job_dirs.h"

#include <unistd.h>

#include <filesystem>

#include "common/strings.h"

namespace rota::noded {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kJobPrefix = "job_";
constexpr std::string_view kUserPrefix = "uid_";
constexpr size_t kMaxRemembered = 4096;

std::string JobLeaf(uint32_t job_id) { return std::string(kJobPrefix) + std::to_string(job_id); }

// The job id a "job_<id>" name stands for.
std::optional<uint32_t> JobIdOf(const std::string& name) {
  if (name.rfind(kJobPrefix, 0) != 0) return std::nullopt;
  std::optional<uint64_t> id = ParseUint(name.substr(kJobPrefix.size()));
  if (!id || *id > UINT32_MAX) return std::nullopt;
  return static_cast<uint32_t>(*id);
}

bool IsUserDir(const fs::directory_entry& e) {
  std::error_code ec;
  return e.is_directory(ec) && e.path().filename().string().rfind(kUserPrefix, 0) == 0;
}

}  // namespace

std::string CgroupJobDirs::Assign(uint32_t job_id, std::optional<uint32_t> uid) {
  std::string place = uid ? std::string(kUserPrefix) + std::to_string(*uid) + "/" + JobLeaf(job_id)
                          : JobLeaf(job_id);
  std::lock_guard<std::mutex> lock(mu_);
  places_[job_id] = place;
  return place;
}

std::string CgroupJobDirs::Find(const std::string& node_dir, uint32_t job_id) const {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = places_.find(job_id); it != places_.end()) return it->second;
  }
  const std::string leaf = JobLeaf(job_id);
  std::error_code ec;
  std::string found;
  if (fs::is_directory(fs::path(node_dir) / leaf, ec)) {
    found = leaf;
  } else {
    for (const fs::directory_entry& e : fs::directory_iterator(node_dir, ec)) {
      if (IsUserDir(e) && fs::is_directory(e.path() / leaf, ec)) {
        found = e.path().filename().string() + "/" + leaf;
        break;
      }
    }
  }
  // Not found is not remembered: the job's cgroup may be made later.
  if (found.empty()) return leaf;
  std::lock_guard<std::mutex> lock(mu_);
  // rotad looks up jobs it never removes (their rota-stepd does): keep the
  // memory bounded over a long life; a forgotten place is found again.
  if (places_.size() >= kMaxRemembered) places_.clear();
  places_[job_id] = found;
  return found;
}

void CgroupJobDirs::Forget(uint32_t job_id) {
  std::lock_guard<std::mutex> lock(mu_);
  places_.erase(job_id);
}

std::map<uint32_t, std::string> CgroupJobDirs::List(const std::string& node_dir) {
  std::map<uint32_t, std::string> jobs;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(node_dir, ec)) {
    if (!e.is_directory(ec)) continue;
    const std::string name = e.path().filename().string();
    if (std::optional<uint32_t> id = JobIdOf(name)) {
      jobs.emplace(*id, name);
      continue;
    }
    if (!IsUserDir(e)) continue;
    for (const fs::directory_entry& j : fs::directory_iterator(e.path(), ec)) {
      if (!j.is_directory(ec)) continue;
      const std::string job = j.path().filename().string();
      if (std::optional<uint32_t> id = JobIdOf(job)) jobs.emplace(*id, name + "/" + job);
    }
  }
  return jobs;
}

void CgroupJobDirs::RemoveEmptyUserDirs(const std::string& node_dir) {
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(node_dir, ec)) {
    // rmdir refuses one that still holds a job's cgroup: that one stays.
    if (IsUserDir(e)) rmdir(e.path().c_str());
  }
}

}  // namespace rota::noded
