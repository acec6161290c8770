#pragma once

// What job steps hold of their job's allocation, node by node: CPU ids, GPU
// indices and memory. A step takes its tasks' CPUs (tasks x cpus-per-task),
// the GPUs it asks for (--gpus-per-task, --gres=gpu:N, --gpus) and the memory
// it asks for (--mem, --mem-per-cpu) out of what the job's other running
// steps leave free; with --overlap it shares everything and holds nothing
// alone (Slurm 22.05: steps do not share resources unless --overlap). A step
// that asks for no GPUs or memory holds none (its tasks see the job's).
// Pure: records in, decisions out.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "ctld/core/step_layout.h"
#include "rota.pb.h"
#include "step_rpc.pb.h"

namespace rota::ctld {

// Resources on one node of a job's allocation.
struct StepNodeResources {
  std::vector<uint32_t> cpus;  // CPU ids, ascending
  std::vector<uint32_t> gpus;  // GPU indices, ascending
  uint64_t mem_mb = StepNodeCapacity::kUnlimitedMemory;

  StepNodeCapacity Capacity() const;
};

// The job's allocation, parallel to job.nodes(). A node without CPU ids in
// its record counts its CPUs as 0..cpus-1; without a memory figure its memory
// is not limited.
std::vector<StepNodeResources> JobStepResources(const wire::JobRecord& job);

// Takes what `step` holds (nothing with overlap) out of `free`, which is
// parallel to job.nodes().
void SubtractStepResources(const wire::JobRecord& job, const wire::JobStepRecord& step,
                           std::vector<StepNodeResources>& free);

// What srun asks of the allocation.
struct StepResourceRequest {
  StepShape shape;
  uint32_t gpus = 0;  // --gpus: for the whole step, spread evenly over its nodes
  bool overlap = false;
  // -m arbitrary: how many tasks each node runs (parallel to the nodes
  // PlaceStep is given; 0: the step does not use it). Empty: laid out by
  // shape.
  std::vector<uint32_t> tasks_on_node;
};
StepResourceRequest StepResourceRequestOf(const wire::CreateStepRequest& request);

// The indices of the job's nodes a step may take, in the job's order: those
// -w names (each must be one of the job's; "Requested node configuration is
// not available" otherwise), less those -x names; all of them without either.
Result<std::vector<uint32_t>> StepNodeChoice(const wire::JobRecord& job,
                                             const wire::CreateStepRequest& request);

struct StepPlacement {
  StepLayout layout;                    // node_indices: into the job's nodes
  std::vector<StepNodeResources> held;  // Parallel to layout.node_indices
};

// Places a step. `job`: the allocation (JobStepResources); `free`: what the
// job's running steps leave of it. Errors: kInvalidArgument when the step can
// never fit in the allocation (Slurm's words); kFailedPrecondition "Requested
// nodes are busy" when it fits once other steps end.
Result<StepPlacement> PlaceStep(const std::vector<StepNodeResources>& job,
                                const std::vector<StepNodeResources>& free,
                                const StepResourceRequest& request);

// The message of the kFailedPrecondition error above.
inline constexpr std::string_view kStepNodesBusy = "Requested nodes are busy";

}  // namespace rota::ctld
