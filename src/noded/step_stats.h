#pragma once

// sstat's figures on this node (api::kStepStats): for a job's steps running
// here, what their cages hold and used so far (CgroupBackend's live readers)
// and what their GPUs did (GpuWatch::Current). Pure but for what those read.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "noded/cage/cgroup_backend.h"
#include "noded/stepd/step_tasks.h"
#include "step_stats.pb.h"
#include "usage.pb.h"

namespace rota::noded {

// One step of a job running on this node.
struct LocalStep {
  std::string step;        // "batch", or the srun step's number ("0")
  std::string cage;        // Its cage: "" for the batch step (the job's own), else StepCageName
  uint64_t watch_key = 0;  // JobWatchKey (batch) or StepWatchKey
  uint32_t uid = 0;        // Its owner
  uint32_t tasks = 0;      // Its tasks here
};

// The job's steps here: its batch step when `batch_uid` is set (the script
// runs here, for that user), then srun's `running` steps by id.
std::vector<LocalStep> LocalStepsOf(uint32_t job_id, std::optional<uint32_t> batch_uid,
                                    const std::vector<StepTasks::RunningStep>& running);

// What the GPUs of a watch key did so far (GpuWatch::Current); nullopt when
// they are not sampled.
using GpuFigures = std::function<std::optional<wire::GpuUsage>(uint64_t watch_key)>;

// The figures of the steps of `here` that `request` names (all of them with
// all_steps; the batch step with batch; srun's by step_ids), read now.
// `caller_uid` sees its own steps, a `privileged` caller (root, SlurmUser)
// every one. Errors: kPermissionDenied ("Access/permission denied") when
// named steps run here but none is the caller's. No step named running here
// is an empty answer, not an error: the step may run on other nodes only.
Result<wire::StepStatsResponse> CollectStepStats(const wire::StepStatsRequest& request,
                                                 const std::vector<LocalStep>& here,
                                                 const std::string& node,
                                                 const CgroupBackend& cgroups,
                                                 const GpuFigures& gpu_figures, uint32_t caller_uid,
                                                 bool privileged);

}  // namespace rota::noded
