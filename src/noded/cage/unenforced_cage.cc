#include "noded/cage/unenforced_cage.h"

#include <signal.h>

#include <cerrno>
#include <cstring>

namespace rota::noded {

Status UnenforcedCage::AddPid(uint32_t job_id, pid_t pid) {
  std::lock_guard<std::mutex> lock(mu_);
  groups_.emplace(job_id, pid);
  return Status::Ok();
}

Status UnenforcedCage::Signal(uint32_t job_id, int signal) {
  pid_t group;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = groups_.find(job_id);
    if (it == groups_.end()) return Status::Ok();
    group = it->second;
  }
  if (killpg(group, signal) != 0 && errno != ESRCH) {
    return Internal("killpg " + std::to_string(group) + ": " + std::strerror(errno));
  }
  return Status::Ok();
}

Status UnenforcedCage::KillAll(uint32_t job_id) { return Signal(job_id, SIGKILL); }

Status UnenforcedCage::Remove(uint32_t job_id) {
  std::lock_guard<std::mutex> lock(mu_);
  groups_.erase(job_id);
  return Status::Ok();
}

}  // namespace rota::noded
