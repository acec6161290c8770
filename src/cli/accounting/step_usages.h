#pragma once
// A job record's measured usage as the accounting commands read it: its
// steps' usage records, and the GPU figures that stand for the whole job.
#include <vector>

#include "accounting.pb.h"

namespace rota::cli {

// The usage records of the job's steps: the batch step's, then srun's (the
// extern step has none).
std::vector<const wire::StepUsage*> StepUsages(const wire::AccountingJob& job);

// The GPU figures of the step watched longest (most samples; ties: more
// GPUs, then the earlier step), null when none was sampled. The batch step's
// GPUs are the job's (srun's steps use some of the same), so adding steps up
// would count a GPU twice.
const wire::StepUsage* MostSampledGpuStep(const wire::AccountingJob& job);

}  // namespace rota::cli
