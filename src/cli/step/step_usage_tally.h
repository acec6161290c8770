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
  // The highest task (the lowest task id among equals), and the mean over the
  // measured tasks; an empty record when none was measured.
  wire::StepUsage Summary() const;

 private:
  wire::StepUsage max_;
  uint64_t total_kb_ = 0;
  uint32_t measured_ = 0;
};

}  // namespace rota::cli
