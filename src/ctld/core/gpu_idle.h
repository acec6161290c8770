#pragma once

// What the controller makes of a node daemon's word that a running job's
// GPUs are idle (docs/gpu-efficiency.md): the flag on the job, the event
// rotadbd keeps, the mail, and when the partition's GpuIdlePolicy cancels or
// requeues it. Pure: the core applies these.

#include <cstdint>
#include <optional>
#include <string>

#include "conf/gpu_idle_policy.h"
#include "ctld/core/effects.h"
#include "node_events.pb.h"
#include "rota.pb.h"

namespace rota::ctld {

// The state rotadbd's event list shows for a flagged job (sacctmgr list events).
inline constexpr char kGpuIdleEventState[] = "GPU_IDLE";

// The event of `job`'s idle GPUs (on all its nodes; recorded on its first),
// open (time_end 0) or closed at `end`.
wire::NodeEvent GpuIdleEvent(const wire::JobRecord& job, const conf::GpuIdlePolicy& policy,
                             const std::string& cluster, int64_t end);

// The mail telling the job's user (--mail-user, else the user) that its GPUs
// are idle, and what will follow: sent under action=notify, and as a warning
// under cancel and requeue. Subject:
//   Slurm Job_id=7 Name=train GPUs idle since 2026-12-03T10:00:00 (mean 1.2%, below 5%), cancel at
//   2026-12-03T10:40:00
MailNotice GpuIdleMail(const wire::JobRecord& job, const conf::GpuIdlePolicy& policy,
                       const std::string& cluster);

// "2026-12-03T10:00:00" (UTC).
std::string GpuIdleTime(int64_t t);

// How many of the job's GPUs its node `i` (in job.nodes() order) holds.
size_t JobGpusAt(const wire::JobRecord& job, int i);

// Notes one node's report in job.gpu_idle_nodes: an idle node is added (or
// its figures renewed), a busy one taken out. True when the set changed.
bool NoteNodeGpuIdle(wire::JobRecord& job, const wire::JobGpuIdleRequest& report);

// A job whose GPUs are idle on every node that holds some: since the last of
// those nodes turned idle, at the mean utilisation of all its GPUs.
struct WholeJobGpuIdle {
  int64_t since = 0;
  double util_pct = 0;
};
// nullopt while some node holding its GPUs has not reported them idle.
std::optional<WholeJobGpuIdle> JobGpusIdle(const wire::JobRecord& job);

}  // namespace rota::ctld
