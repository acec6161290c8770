#pragma once

// An interactive allocation, as salloc and srun outside a job get one: the
// request is submitted as a job whose batch step is a small placeholder script
// that holds the allocation until it is told (SIGUSR1 to the batch step only)
// to end, so the job ends COMPLETED and its node daemons clean up as for any
// job (docs/steps.md). Used by salloc_main.cc and srun_main.cc.

#include <csignal>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/client/controller_client.h"
#include "rota.pb.h"

namespace rota::cli {

// How the command speaks while it waits (Slurm's words differ between them).
enum class AllocationVoice {
  kSalloc,  // "salloc: Pending job allocation N", "salloc: Granted job allocation N"
  kSrun,    // "srun: job N queued and waiting for resources", "... has been allocated resources"
};

struct Allocation {
  uint32_t job_id = 0;
  wire::JobLaunch job;  // As it started running: what its steps and environment need
  std::string cluster;
};

// Makes `spec` (parsed by ParseJobOptions) an allocation request: the
// placeholder script, no output files, `name` when it has none.
void MakeAllocationSpec(wire::JobSpec& spec, const std::string& name);

// Submits `spec` and waits until the job runs, printing the voice's lines to
// stderr. Gives up (cancelling the job) once `*give_up` is set, or, with
// `immediate_s` (-I/--immediate), once that many seconds passed without the
// job running. Errors: the complete line to print (the job was refused,
// revoked, ended first, or could not start in time).
Result<Allocation> Allocate(ControllerClient& client, const wire::JobSpec& spec,
                            AllocationVoice voice, const volatile sig_atomic_t* give_up,
                            std::optional<uint32_t> immediate_s = std::nullopt);

// Ends the allocation: the placeholder ends (job COMPLETED), or with `cancel`
// the job is cancelled. Errors go to stderr unless `quiet`.
void ReleaseAllocation(ControllerClient& client, uint32_t job_id, bool cancel, bool quiet,
                       const char* program);

// The job's variables for what runs in the allocation (SLURM_JOB_ID,
// SLURM_JOB_NODELIST, SLURM_NNODES, and what it asked for: SLURM_NTASKS,
// SLURM_GPUS_PER_TASK, SLURM_GPU_BIND, ...; model/job_variables.h).
std::vector<std::pair<std::string, std::string>> AllocationVariables(
    const Allocation& allocation, const std::string& submit_dir, const std::string& submit_host);

// Sets NAME=value in `env`, replacing an earlier value.
void SetVariable(std::vector<std::string>& env, const std::string& name, const std::string& value);

}  // namespace rota::cli
