#pragma once

// Which processes hold a file open — for the check, after a job, that nothing
// still holds the job's GPUs before the node takes the next job.

#include <sys/types.h>

#include <string>
#include <vector>

namespace rota::noded {

// Pids (ascending) with an open descriptor on `path`, from /proc (or `proc_root`
// in tests). Processes that vanish or cannot be read are skipped.
std::vector<pid_t> ProcessesHolding(const std::string& path,
                                    const std::string& proc_root = "/proc");
// The same for each of `paths` (result i for paths[i]).
std::vector<std::vector<pid_t>> ProcessesHoldingAny(const std::vector<std::string>& paths,
                                                    const std::string& proc_root = "/proc");

}  // namespace rota::noded
