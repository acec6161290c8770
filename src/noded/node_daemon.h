#pragma once

// rotad put together: configuration, credentials, the cage backend, GPU
// bookkeeping, registration with heartbeats, and the RPC service the
// controller calls to launch and signal jobs.

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "auth/credential.h"
#include "auth/credential_socket_server.h"
#include "noded/container/node_containers.h"
#include "noded/gpu/gpu_watch.h"
#include "noded/node_context.h"
#include "noded/node_parts.h"
#include "noded/prepared_jobs.h"
#include "noded/stepd/step_forker.h"
#include "noded/stepd/step_tasks.h"
#include "rota.pb.h"
#include "rpc/server.h"
#include "step.pb.h"

namespace rota::noded {

struct NodeDaemonOptions {
  std::string slurm_conf_path;
  std::string node_name;
  // The longest wait between registrations; shorter when SlurmdTimeout asks
  // (see NodeSettings::heartbeat_interval).
  std::chrono::seconds heartbeat_interval{30};
  // ROTA_FAKE_GPUS: a fake GPU inventory file to use instead of the hardware
  // (gpu/discovery/fake_gpu_provider.h); "" for none.
  std::string fake_gpus_file;
  // Configless (noded/configless.h): the cache slurm_conf_path lies in, the
  // directory of the host's key, and the digest of the files in it ("" when
  // unknown). A registration answer with another digest makes the daemon
  // fetch the files again. Empty config_cache_dir: slurm.conf is local.
  std::string config_cache_dir;
  std::string conf_dir;
  std::string config_digest;
};

class NodeDaemon {
 public:
  // Loads the configuration, creates the spool directory, takes back the jobs
  // whose rota-stepd outlived the previous rotad (and reports those that ended
  // meanwhile), sweeps the cages nobody runs any more, listens, and starts
  // registering with the controller (in the background: a controller that is
  // down does not stop the node).
  static Result<std::unique_ptr<NodeDaemon>> Start(const NodeDaemonOptions& options);
  ~NodeDaemon();  // Stop().

  uint16_t port() const { return server_->port(); }

  // Stops listening, kills the jobs still running (through their step
  // daemons), reports their exits if the controller answers (otherwise the
  // next start does), and joins every thread. Idempotent. Only a rotad that
  // dies without Stop (a crash, SIGKILL) leaves its jobs running.
  void Stop();

  // SIGHUP (systemctl reload). Configless: fetches the controller's files now
  // (new job steps use them). With a local slurm.conf: an error saying to
  // restart, since the daemon reads it at start only.
  Status Reload();

 private:
  struct RunningJob {
    std::thread thread;  // Starts or re-attaches its rota-stepd, then reports its end.
    uint32_t run = 0;    // The job's restart count: which run of it this is
    uint32_t cpus = 0;   // CPUs the job holds on this node
  };
  // A job's run whose thread is ending.
  using RunKey = std::pair<uint32_t, uint32_t>;  // (job id, run)

  NodeDaemon() = default;
  void Handle(const rpc::RequestContext& context, std::string body, rpc::Responder respond);
  void Launch(wire::LaunchJobRequest request, rpc::Responder respond);
  void SignalJob(const wire::SignalJobRequest& request, rpc::Responder respond);
  // Picks GPUs, writes the step record, starts rota-stepd, answers the
  // launch, waits for the job's end and reports it. Runs on the job's thread.
  void StartStep(wire::LaunchJobRequest request, const rpc::Responder& respond);
  // Reports `outcome`, frees the job's GPUs and, once the controller has it,
  // its spool files. Runs on the job's thread.
  void FinishStep(wire::JobExitedRequest outcome, uint32_t run);
  // Kills whatever is left in the job's cage and removes it; false (and the
  // node drained) when processes survive SIGKILL.
  bool EmptyJobCage(uint32_t job_id);
  // Starts the step daemon of `job_id`: forked from forker_, else by exec.
  Status SpawnStep(uint32_t job_id);
  // Asks the job's rota-stepd to deliver a signal; false when none answered.
  bool SignalStep(uint32_t job_id, const wire::StepSignal& signal);
  // At start: takes back the jobs whose step daemons still run and starts
  // reporting those that ended or were lost. Returns the live ones.
  std::set<uint32_t> RecoverSteps();
  void HeartbeatLoop();
  // Configless: fetches the files again when the controller's `digest` (from
  // a registration answer) differs from those in the cache.
  void FetchChangedConfig(const std::string& digest);
  // Configless: fetches the files into the cache and notes their digest.
  Status FetchConfig();
  // The controller asked for a registration now (api::kRegisterNow, sent by
  // a controller that starts): the heartbeat's wait ends early.
  void NudgeHeartbeat();
  // Waits up to `wait` or until nudged; true once the daemon stops.
  bool WaitForHeartbeat(std::chrono::milliseconds wait);
  // HealthCheckProgram every HealthCheckInterval; a failure drains the node
  // with what the program printed.
  void HealthCheckLoop();
  // Samples the GPUs (gpu/gpu_watch.h) when a sampler serves this node's
  // GPU source; a health event drains the node.
  void StartGpuWatch(const NodeParts& parts);
  // Drains the node for `reason`, as Slurm's "Kill task failed" and a GPU's
  // health event do.
  void DrainSelf(const std::string& reason);
  // Puts what the job's GPUs did here into its exit report, and whether a
  // health event hit one of them.
  void AddGpuUsage(uint32_t job_id, wire::JobExitedRequest& outcome);
  // When the GPUs of a job of `partition` count as idle (its GpuIdlePolicy).
  GpuIdleRule IdleRuleOf(const std::string& partition) const;
  // Watches for idleness the GPUs the controller's heartbeat answer says this
  // node holds for jobs whose batch script runs elsewhere, and stops watching
  // those no longer listed.
  void WatchGpuShares(const wire::NodeRegisterResponse& answer);
  // Tells the controller that a job's GPUs turned idle or busy again.
  void ReportGpuIdle(const GpuIdleChange& change);
  // CPUs the jobs running here hold (HealthCheckNodeState's load).
  uint32_t HeldCpus();
  // Joins the threads of jobs that have ended. REQUIRES: mu_ held.
  void JoinFinishedLocked();

  NodeDaemonOptions options_;
  std::mutex config_mu_;       // One fetch at a time: heartbeat thread and SIGHUP
  std::string config_digest_;  // Of the cached files (configless). Guarded by config_mu_.
  std::unique_ptr<auth::CredentialVerifier> verifier_;
  // auth/slurm: signs credentials for local users (node_credential_socket.h).
  std::unique_ptr<auth::CredentialSocketServer> credential_socket_;
  uint32_t slurm_user_uid_ = 0;
  std::unique_ptr<GpuAllocator> gpus_;
  std::unique_ptr<GpuWatch> gpu_watch_;  // Null: this node's GPUs are not sampled.
  NodeContainers containers_;            // The jobs' containers and their images
  // Batch scripts' containers by job, closed (and saved, --container-save)
  // when the job ends. Guarded by mu_.
  struct BatchContainer {
    std::shared_ptr<OpenContainer> container;
    std::string save_to;
  };
  std::map<uint32_t, BatchContainer> batch_containers_;
  std::unique_ptr<CgroupBackend> cgroups_;
  std::unique_ptr<ControllerLink> controller_;
  // Forks the step daemons; null when it could not start or broke (then each
  // is exec'd).
  std::unique_ptr<StepForker> forker_;
  StopFlag stop_;
  std::mutex nudge_mu_;
  std::condition_variable nudge_cv_;
  bool nudged_ = false;  // Guarded by nudge_mu_.
  NodeContext context_;
  std::unique_ptr<rpc::RpcServer> server_;
  std::thread heartbeat_;
  std::thread health_check_;
  std::unique_ptr<StepTasks> step_tasks_;  // srun's tasks on this node.
  // PrologFlags=Alloc/Contain: the jobs this node was prepared for (not their first node).
  std::unique_ptr<PreparedJobs> prepared_;

  std::mutex mu_;
  std::map<uint32_t, RunningJob> jobs_;  // Guarded by mu_.
  std::vector<RunKey> finished_;         // Runs whose thread is ending. Guarded by mu_.
  std::set<uint32_t> batch_started_;     // Batch scripts started here (cage made). Guarded by mu_.
  std::map<uint32_t, uint32_t> gpu_shares_;  // Watched shares: job -> run. Guarded by mu_.
  bool gpu_shares_known_ = false;            // A heartbeat answer listed them. Guarded by mu_.
  bool stopped_ = false;                     // Guarded by mu_.
};

}  // namespace rota::noded
