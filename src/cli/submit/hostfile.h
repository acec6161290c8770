#pragma once

// -m arbitrary's SLURM_HOSTFILE, read by srun (each task's node) and by
// sbatch and salloc (the job's nodes and task count).

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace rota::cli {

struct Hostfile {
  std::vector<std::string> task_hosts;  // Task i's node, for the tasks asked
  std::vector<std::string> nodes;       // The distinct hosts, first seen first
};

// Reads `path` (model::ParseHostfile says the format); `tasks` as there.
// Errors name the file: "cannot read SLURM_HOSTFILE P", "SLURM_HOSTFILE P: ...".
Result<Hostfile> ReadHostfile(const std::string& path, uint32_t tasks);

}  // namespace rota::cli
