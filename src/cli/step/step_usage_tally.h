#pragma once

// srun's summary of what its step's tasks used, from the EXIT frames of their
// nodes, for the step's end report (sacct's MaxRSS, MaxRSSNode, MaxRSSTask,
// AveRSS of JOBID.STEPID).

#include <cstdint>
#include <string>

#include "usage.pb.h"

namespace rota::cli {

class StepUsageTally {
 public:
  // Task `task` on `node` peaked at `max_rss_kb` (0: its node did not measure).
  void Add(uint32_t task, const std::string& node, uint64_t max_rss_kb);
  // A task's CPU time (µs), summed into the step's.
  void AddCpu(uint64_t user_us, uint64_t system_us);
  // What one node's GPUs did for the step. Nodes add up as GPUs do within a
  // node (sums of their means and peaks); the node is named when only one
  // reported.
  void AddGpu(const wire::GpuUsage& node_gpus);
  // The highest task (the lowest task id among equals), the mean over the
  // measured tasks, and the CPU time of all; an empty record when nothing
  // was measured.
  wire::StepUsage Summary() const;

 private:
  wire::StepUsage max_;
  uint64_t total_kb_ = 0;
  uint32_t measured_ = 0;
  uint64_t user_cpu_us_ = 0;
  uint64_t system_cpu_us_ = 0;
  wire::GpuUsage gpu_;
  int gpu_nodes_ = 0;
};

}  // namespace rota::cli
