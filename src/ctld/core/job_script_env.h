#pragma once

// The environment the controller gives the programs it runs about a job —
// MailProg now, PrologSlurmctld and EpilogSlurmctld when they come — as
// Slurm's controller does: the job's identity, owner, partition, nodes, files
// and, once it ended, its exit code.

#include <string>
#include <vector>

#include "conf/slurm_conf.h"
#include "ctld/core/effects.h"
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

// Appends slurm.conf's EpilogSlurmctld, when set, for `job`, whose
// allocation just ended (it completed, failed, was cancelled or requeued),
// with its variables and SLURM_SCRIPT_CONTEXT=epilog_slurmctld. A job that
// never held nodes runs none, as in Slurm.
void AddEpilogSlurmctld(const wire::JobRecord& job, const conf::SlurmConf& settings,
                        Effects& effects);

// Appends slurm.conf's PrologSlurmctld for `job`, just allocated, with its
// variables and SLURM_SCRIPT_CONTEXT=prolog_slurmctld.
// REQUIRES: settings.prolog_slurmctld is set.
void AddPrologSlurmctld(const wire::JobRecord& job, const conf::SlurmConf& settings,
                        Effects& effects);

}  // namespace rota::ctld
