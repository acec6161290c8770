#pragma once

// The environment the controller gives the programs it runs about a job —
// MailProg now, PrologSlurmctld and EpilogSlurmctld when they come — as
// Slurm's controller does: the job's identity, owner, partition, nodes, files
// and, once it ended, its exit code.

#include <string>
#include <vector>

#include "rota.pb.h"

namespace rota::ctld {

// NAME=value entries: SLURM_JOB_ID (and SLURM_JOBID), SLURM_JOB_NAME,
// SLURM_JOB_USER, SLURM_JOB_UID, SLURM_JOB_GID, SLURM_JOB_GROUP,
// SLURM_JOB_ACCOUNT, SLURM_JOB_PARTITION, SLURM_JOB_NODELIST,
// SLURM_CLUSTER_NAME, SLURM_JOB_WORK_DIR, SLURM_JOB_STDOUT/STDERR/STDIN,
// SLURM_ARRAY_JOB_ID and SLURM_ARRAY_TASK_ID for an array task, SLURM_JOB_STATE,
// PATH; with `ended`, SLURM_JOB_EXIT_CODE (the wait status) and
// SLURM_JOB_EXIT_CODE2 ("status:signal").
std::vector<std::string> JobScriptEnvironment(const wire::JobRecord& job,
                                              const std::string& cluster_name, bool ended);

}  // namespace rota::ctld
