#pragma once

// What the controller tells accounting (rotadbd) about jobs: one record when
// an attempt starts and one when it ends, built from the job record alone so
// the core stays pure. Records go into Effects::accounting; the server makes
// them durable in its outbox and delivers them (ctld/server/accounting_outbox.h).
// Nothing is produced unless AccountingStorageType=accounting_storage/slurmdbd.

#include <cstdint>

#include "accounting.pb.h"
#include "common/tres.h"
#include "conf/cluster_config.h"
#include "ctld/core/effects.h"
#include "rota.pb.h"

namespace rota::ctld {

bool AccountingEnabled(const conf::ClusterConfig& config);
// PrologFlags=Contain: every job has an extern step on each of its nodes
// (sacct's JOBID.extern line).
bool ContainsExternStep(const conf::ClusterConfig& config);

// Remembers on the job who cancelled it (sacct's "CANCELLED by UID").
inline void NoteCancelledBy(wire::JobRecord& job, uint32_t uid) {
  job.set_cancelled(true);
  job.set_cancelled_by_uid(uid);
}

// The accounting view of `job` as it is now. `state` overrides the job's own
// (the attempt that a requeue ends). Pure.
wire::AccountingJob MakeAccountingJob(const conf::ClusterConfig& config, const wire::JobRecord& job,
                                      wire::JobState state);

// A finished or running srun step as accounting keeps it (JOBID.STEPID).
wire::AccountingStep MakeAccountingStep(const conf::ClusterConfig& config,
                                        const wire::JobStepRecord& step);

// Called with each job record the core persists: a started (RUNNING) or
// finished attempt yields a record; pending, completing and array meta
// records yield none. Repeats are harmless (rotadbd stores idempotently).
void AccountJobChange(const conf::ClusterConfig& config, const wire::JobRecord& job,
                      Effects& effects);

// AccountingStoreFlags=job_script / job_env: whether `record` should carry
// its job's batch script / submission environment (a batch job's running
// record; rotadbd keeps them from the first that does).
bool CarriesJobTexts(const conf::ClusterConfig& config, const wire::AccountingJob& record);
void AttachJobTexts(const conf::ClusterConfig& config, const wire::JobPayload& payload,
                    wire::AccountingJob& record);

// Called just before a running job goes back to the queue: the attempt that
// ends here is recorded with `state` (REQUEUED, NODE_FAIL...) and end time `now`.
void AccountAttemptEnd(const conf::ClusterConfig& config, const wire::JobRecord& job,
                       wire::JobState state, int64_t now, Effects& effects);

// "cpu=2,mem=2G,node=1,billing=2,gres/gpu=2" restricted to what accounting
// tracks: the fixed TRES always, gres/... only when AccountingStorageTRES
// lists it (Slurm records no GPU usage otherwise).
std::string TrackedTres(const conf::ClusterConfig& config, const std::string& tres);

// What the job asked for, as a TRES string (ReqTRES).
std::string RequestedTres(const conf::ClusterConfig& config, const wire::JobRecord& job);
// The same TRES as counts, without the text (the limits count them for every
// pending job in every scheduling pass); ToString() gives RequestedTres.
TresCounts RequestedTresCounts(const conf::ClusterConfig& config, const wire::JobRecord& job);
// TrackedTres as counts: a running job's AllocTRES, untracked gres dropped.
TresCounts TrackedTresCounts(const conf::ClusterConfig& config, const std::string& tres);

}  // namespace rota::ctld
