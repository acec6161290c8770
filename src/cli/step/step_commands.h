#pragma once

// The step side of squeue and scancel: `squeue -s` lists running job steps,
// `scancel JOBID.STEPID` signals one step's tasks on its nodes. Each is one
// call from the command's main.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "step_rpc.pb.h"

namespace rota::cli {

// "123.4" -> {123, 4}; nullopt for anything else (plain job ids included).
std::optional<std::pair<uint32_t, uint32_t>> ParseStepId(std::string_view text);

// squeue -s's table: STEPID NAME PARTITION USER TIME NODELIST, one running
// step a line, TIME since the step started (`now`).
std::string FormatStepTable(const std::vector<wire::JobStepRecord>& steps, int64_t now,
                            bool header);

// squeue -s: lists the running steps of `job_ids` ("123" or "123.4"; all jobs
// when empty) from the controller at `slurm_conf`. Returns the exit code.
int ListStepsCommand(const std::string& slurm_conf, const std::vector<std::string>& job_ids,
                     bool header);

// scancel JOBID.STEPID: asks the step's node daemons to send `signal` (0:
// SIGKILL) to its tasks. Returns the exit code; errors go to stderr unless `quiet`.
int CancelStepCommand(const std::string& slurm_conf, uint32_t job_id, uint32_t step_id, int signal,
                      bool quiet);

}  // namespace rota::cli
