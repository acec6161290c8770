#pragma once

// Golden scenarios for the resource selection: a cluster (one of the shared
// example configurations, or files written inline) and a sequence of job
// submissions and ends in, one line per decision out:
//
//   config gpu-cluster                 the example of that name
//   file slurm.conf ... endfile        or inline files (slurm.conf, gres.conf, topology.conf)
//   run NAME SBATCH-OPTIONS...         submit and try to place now
//   retry NAME                         try a pending job again
//   end NAME                           the job ends: its resources come back
//   drain NODELIST                     nodes stop taking jobs
//   time SECONDS                       the clock (submissions happen at 0)
//   # comment
//
// The decisions go through the controller's ShapeJob/CheckCanEverRun and the
// selection, exactly as a submission does.

#include <string>

#include "common/status.h"

namespace rota::scenarios {

// The decisions for the scenario text `text`, one line each. Errors in the
// scenario itself (unknown command, bad config) come back as a Status.
Result<std::string> RunScenario(const std::string& text);

}  // namespace rota::scenarios
