#pragma once

// Where a job's cgroup sits below its node's level, for both cgroup backends:
// uid_<uid>/job_<id>, as Slurm lays out its own, so that an administrator
// finds a user's jobs together (and job_<id> directly below the node for
// callers that name no user, as the cage tests do).
//
// The process that made a job's cgroup knows where it is; another (rotad
// signalling a job that its rota-stepd caged, a restarted rotad sweeping)
// finds it by looking, once, and remembers.

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace rota::noded {

class CgroupJobDirs {
 public:
  // The job's place below the node level: "uid_<uid>/job_<id>", or
  // "job_<id>" without a uid. Remembered for Find.
  std::string Assign(uint32_t job_id, std::optional<uint32_t> uid);
  // The job's place below `node_dir`: as assigned, else as found there,
  // else "job_<id>" (not made yet, or gone).
  std::string Find(const std::string& node_dir, uint32_t job_id) const;
  // Forgets the job (its cgroup is gone).
  void Forget(uint32_t job_id);

  // Every job cgroup below `node_dir`, at either depth, by job id.
  static std::map<uint32_t, std::string> List(const std::string& node_dir);
  // Removes the uid_<uid> directories below `node_dir` that hold no job.
  static void RemoveEmptyUserDirs(const std::string& node_dir);

 private:
  mutable std::mutex mu_;
  mutable std::map<uint32_t, std::string> places_;  // Guarded by mu_.
};

}  // namespace rota::noded
