#pragma once

// One batch job on this node, from launch request to outcome: takes its
// GPUs, writes its script to the spool, builds its cage and environment,
// starts it as its user, waits for it, kills whatever it left behind, removes
// its cage and runs the Epilog. Runs inside rota-stepd (step_daemon.h), which
// records the outcome for rotad to report to the controller; the end of the
// script itself is told to the controller at once (the job is COMPLETING
// while the node cleans up).
//
// Run() occupies one thread for the job's life; Signal() may be called from
// any thread meanwhile.

#include <sys/types.h>

#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "common/status.h"
#include "container.pb.h"
#include "noded/gpu/gpu_allocator.h"
#include "noded/node_context.h"
#include "noded/stepd/job_process.h"
#include "rota.pb.h"
#include "usage.pb.h"

namespace rota::noded {

class BatchJob {
 public:
  // REQUIRES: `node` outlives this job. `chosen_gpus`: the GPU indices rotad
  // picked for it on this node (taken exactly); none: pick them here.
  // `container`: where the script runs when sbatch asked for a container
  // (rotad opened it); empty: on the host.
  BatchJob(const NodeContext& node, wire::LaunchJobRequest request,
           std::optional<std::vector<uint32_t>> chosen_gpus = std::nullopt,
           wire::ContainerPlace container = {});

  uint32_t job_id() const { return request_.job().job_id(); }

  // Launches the job and calls `launched` once it runs (OK) or could not start
  // (the error; the outcome is then an exit with code 1). Then waits for the
  // script to end, cleans up, runs the Epilog and returns the exit report for
  // the controller (ReportJobExit).
  wire::JobExitedRequest Run(const std::function<void(const Status&)>& launched);

  // Sends `signal` to the job: to every process in its cage, or only to the
  // batch script with `batch_only`. Nothing to do once it has ended. SIGTERM
  // to the whole job is Slurm's termination (the time limit): SIGKILL follows
  // after KillWait seconds unless the script ended by then.
  // `terminate`: the job must end (its time limit): SIGKILL follows after
  // KillWait if anything of it is left. Otherwise the signal is only delivered.
  void Signal(int signal, bool batch_only, bool terminate = false);

 private:
  Status Launch();
  Status PrepareSpool(const std::string& script);
  Result<CageLimits> LimitsFor() const;
  // This node's part of the allocation, when the controller sent exact ones.
  const wire::NodeAlloc* AllocHere() const;
  void CleanUp();
  // The exit report for `wait_status`. `cleanup_follows`: the early report,
  // sent when the script ends, before the cage is emptied and the Epilog runs.
  wire::JobExitedRequest Outcome(uint32_t wait_status, bool cleanup_follows = false) const;
  // Runs every script `pattern` names (Prolog=, Epilog=) with the job's SLURM_*
  // variables; the first failure's reason, or "" when all succeeded.
  std::string RunSiteScripts(const std::string& pattern, std::string_view what) const;
  // Drains this node through the controller (an Epilog that failed).
  void DrainNode(const std::string& reason) const;
  std::string JobSpoolDir() const;

  const NodeContext& node_;
  const wire::LaunchJobRequest request_;
  const std::optional<std::vector<uint32_t>> chosen_gpus_;
  const wire::ContainerPlace container_;
  std::vector<GpuDevice> gpus_;          // Held on this node; owned by Run's thread.
  bool cage_created_ = false;            // Owned by Run's thread.
  bool out_of_memory_ = false;           // Set by CleanUp from the cage's OOM count.
  wire::StepUsage usage_;                // Measured once the script ended; owned by Run's thread.
  std::string prolog_failure_;           // Why the Prolog failed (Launch); empty: it did not.
  std::vector<std::string> script_env_;  // Environment for Prolog/Epilog, set by Launch.
  // How the batch script was started (before any TaskProlog), for the
  // TaskEpilog; set by Launch, owned by Run's thread.
  JobProcessSpec task_;
  // Runs slurm.conf's TaskEpilog, if any, in the job's cage after the script ended.
  void RunTaskEpilogHere();

  // Waits KillWait after a SIGTERM, then sends SIGKILL unless the script ended.
  void KillAfterWait(std::chrono::seconds wait);

  std::mutex mu_;
  std::condition_variable ended_cv_;  // Notified when ended_ becomes true.
  pid_t pid_ = -1;                    // The batch script while it runs. Guarded by mu_.
  bool ended_ = false;  // The script exited (not yet reaped or reaped). Guarded by mu_.
  // Started by the first SIGTERM while the script runs (under mu_); joined by
  // Run's thread once ended_ is set, after which nothing starts it again.
  std::thread killer_;
};

// Takes the GPUs `job` needs on this node from `node.gpus`: the controller's
// exact choice when it sent one, else the lowest free ones of the asked type.
Result<std::vector<GpuDevice>> HoldJobGpus(const NodeContext& node, const wire::JobLaunch& job);

// Sends `exit` to the controller, retrying while it is unreachable, until it
// answers or the daemon stops. True when the controller has it (or refused it
// for good: retrying would not help); false when stopping first.
bool ReportJobExit(const NodeContext& node, const wire::JobExitedRequest& exit);

}  // namespace rota::noded
