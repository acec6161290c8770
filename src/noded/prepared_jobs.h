#pragma once

// PrologFlags=Alloc/Contain on the nodes of a job other than its first (where
// the batch launch does the same): when the job starts the controller asks
// each of them to prepare (api::kPrepareJob). This makes the job's cage with
// its extern step (job_<id>/step_extern, where processes that join the job
// from outside, such as adopted ssh sessions, are confined) and runs the
// Prolog; a failing Prolog is reported as the batch node reports its own. The
// cage stays until the job ends here (the controller's terminating signal):
// its processes get that signal, whatever is left is killed after KillWait,
// the Epilog runs and the cage goes. Steps (srun) that run here meanwhile
// share the cage (StepTasks counts its holders).
//
// Each prepared job is recorded in the spool (prepared/job<ID>), so that a
// rotad that restarts keeps its cage (Recorded, Adopt) instead of sweeping it,
// and reports the job at registration: the controller kills it there when it
// ended meanwhile. Thread-safe.

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "job_prepare.pb.h"
#include "noded/node_context.h"
#include "noded/stepd/step_tasks.h"
#include "rpc/server.h"

namespace rota::noded {

inline constexpr char kExternStepCage[] = "step_extern";

class PreparedJobs {
 public:
  // REQUIRES: `node` and `steps` outlive this object.
  PreparedJobs(const NodeContext& node, StepTasks* steps);
  ~PreparedJobs();  // Stop().

  // The jobs recorded in `spool_dir` by an earlier rotad (their cages are not
  // stale). Called before the sweep.
  static std::set<uint32_t> Recorded(const std::string& spool_dir);
  // Takes back the recorded jobs: their cages count as held again.
  void Adopt();

  // Prepares this node for `request`'s job on a thread of its own and answers
  // once done (also when the Prolog failed: that is reported apart).
  void Prepare(wire::PrepareJobRequest request, rpc::Responder respond);
  // The job ends here: `signal` to the processes of its cage, then, after
  // KillWait (at once for SIGKILL), kill what is left, run the Epilog and
  // remove the cage. Does nothing for a job not prepared here.
  void End(uint32_t job_id, int signal);
  // The jobs prepared here and not yet ended.
  std::vector<uint32_t> Held();
  // Ends every prepared job at once (rotad stops: its jobs are killed) and
  // joins the threads.
  void Stop();

 private:
  struct Worker {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;  // Set as the thread's last act
  };
  struct Entry {
    wire::JobLaunch job;
    uint64_t generation = 0;  // Tells a later preparation of the same job apart
    bool ready = false;       // The cage is made (and the Prolog ran)
    bool ending = false;      // End was called: released once ready
  };
  void Run(wire::PrepareJobRequest request, uint64_t generation, const rpc::Responder& respond);
  // Kills, runs the Epilog (when `epilog`), removes the cage and the record.
  void Release(const wire::JobLaunch& job, bool epilog);
  // Removes `job_id`'s entry if it is still `generation`; true when it did.
  bool TakeEntry(uint32_t job_id, uint64_t generation, wire::JobLaunch* job);
  std::vector<std::string> ScriptEnvironment(const wire::JobLaunch& job,
                                             const std::string& cluster_name) const;
  // The first failure of the site's scripts matching `pattern`; "" if none.
  std::string RunScripts(const std::string& pattern, const std::vector<std::string>& env,
                         uint32_t job_id, const char* what) const;
  std::string RecordPath(uint32_t job_id) const;

  const NodeContext& node_;
  StepTasks* const steps_;

  std::mutex mu_;
  std::map<uint32_t, Entry> jobs_;  // Guarded by mu_.
  std::vector<Worker> threads_;     // Preparations and delayed releases. Guarded by mu_.
  uint64_t next_generation_ = 1;    // Guarded by mu_.
  bool stopped_ = false;            // Guarded by mu_.
};

}  // namespace rota::noded
