// A node daemon's own list of its jobs, held against the controller's records
// at every registration and heartbeat. Two things can make them disagree: a
// node that lost a job (its spool wiped, its host rebooted) and a node that
// still runs a job the controller has given up on there (the node was set
// DOWN, the job requeued or ended, and the node came back with the old copy).
#include <algorithm>
#include <csignal>
#include <unordered_set>

#include "ctld/core/job_control.h"
#include "model/job_state.h"

namespace rota::ctld {
namespace {

bool OnNode(const wire::JobRecord& job, const std::string& node) {
  return std::find(job.nodes().begin(), job.nodes().end(), node) != job.nodes().end();
}

bool AwaitsCleanup(const wire::JobRecord& job, const std::string& node) {
  return std::find(job.completing_nodes().begin(), job.completing_nodes().end(), node) !=
         job.completing_nodes().end();
}

}  // namespace

void JobControl::ReconcileNodeJobs(const wire::NodeRegisterRequest& report, int64_t now,
                                   Effects& effects) {
  const std::string& node = report.node();
  const std::unordered_set<uint32_t> held(report.jobs().begin(), report.jobs().end());

  // The node holds it, but no run of it belongs there any more: kill the copy.
  for (uint32_t id : held) {
    auto it = jobs_.find(id);
    if (it != jobs_.end()) {
      const wire::JobRecord& job = *it->second;
      const bool running_here =
          (job.state() == wire::JOB_STATE_RUNNING || job.state() == wire::JOB_STATE_SUSPENDED) &&
          OnNode(job, node);
      const bool ending_here =
          job.state() == wire::JOB_STATE_COMPLETING && AwaitsCleanup(job, node);
      if (running_here || ending_here) continue;
    }
    SignalJob kill;
    kill.job_id = id;
    kill.nodes = {node};
    kill.signal = SIGKILL;
    effects.signals.push_back(std::move(kill));
  }

  // The controller believes the node runs it, but the node does not have it.
  // A job launched within BatchStartTimeout may simply not have reached the
  // node when it wrote this list, so it is given that long.
  const int64_t grace = config_->settings.batch_start_timeout;
  std::vector<uint32_t> lost;
  std::vector<uint32_t> cleaned;
  for (const auto& [id, live] : jobs_.live()) {  // Finished jobs are on no node
    const JobTable::Ptr& job = *live;
    if (held.count(id) != 0 || job->nodes().empty() || job->start_time() + grace > now) continue;
    if (job->gang_launch_pending()) continue;  // Waits for its first time slice: not there yet
    if (job->prolog_slurmctld_running() && job->state() == wire::JOB_STATE_RUNNING) {
      continue;  // Not launched before its PrologSlurmctld succeeds
    }
    if ((job->state() == wire::JOB_STATE_RUNNING || job->state() == wire::JOB_STATE_SUSPENDED) &&
        job->nodes(0) == node) {
      lost.push_back(id);
    } else if (job->state() == wire::JOB_STATE_COMPLETING && AwaitsCleanup(*job, node)) {
      // Nothing of it is left there to clean up.
      cleaned.push_back(id);
    }
  }
  for (uint32_t id : cleaned) NodeCleanedUp(Mutable(id), node, now, effects);
  for (uint32_t id : lost) {
    wire::JobRecord& job = Mutable(id);
    // Other nodes of the job may still run parts of it.
    SignalJob kill;
    kill.job_id = id;
    kill.signal = SIGKILL;
    for (const std::string& other : job.nodes()) {
      if (other != node) kill.nodes.push_back(other);
    }
    if (!kill.nodes.empty()) effects.signals.push_back(std::move(kill));
    if (job.requeue()) {
      ReturnToQueue(job, wire::JOB_STATE_NODE_FAIL, now, effects);
      Persist(job, effects);
    } else {
      FinishJob(job, wire::JOB_STATE_NODE_FAIL, now, effects);
    }
  }
  if (!lost.empty() || !cleaned.empty()) jobs_.Touch();
}

}  // namespace rota::ctld
