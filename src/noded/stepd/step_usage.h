#pragma once

// What a job step used on this node, as the node daemon reports it with the
// step's end (sacct's MaxRSS, MaxRSSNode, MaxRSSTask, AveRSS). The figures come
// from the kernel when the step ends; nothing samples while it runs.

#include <sys/resource.h>

#include <cstdint>
#include <optional>
#include <string>

#include "usage.pb.h"

namespace rota::noded {

// The batch step's usage (task 0 on `node`): the peak of the job's cage
// (`cage_peak_bytes`, cgroup v1 memory.max_usage_in_bytes or v2 memory.peak)
// when the backend knows it, else the script's own peak resident set with
// that of the children it waited for (wait4's ru_maxrss, KiB). The cage's peak
// also counts the page cache the job's files use and, on the job's first
// node, the srun steps that ran there. An empty record when neither is known.
wire::StepUsage BatchStepUsage(std::optional<uint64_t> cage_peak_bytes, uint64_t script_maxrss_kb,
                               const std::string& node);

// `used`'s CPU times (wait4's, with the children waited for) in µs.
uint64_t UserCpuMicros(const rusage& used);
uint64_t SystemCpuMicros(const rusage& used);

}  // namespace rota::noded
