#pragma once

// The files a rota-stepd keeps in the node's spool directory, which outlive
// rotad: job<ID>.step (its StepRecord, written by rotad before the step daemon
// starts), job<ID>.sock (where it listens while it runs) and job<ID>.exit (the
// exit report, written once the job has ended). A restarted rotad reads them
// to take its jobs back; all of them go once the controller has the exit.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "rota.pb.h"
#include "step.pb.h"

namespace rota::noded {

std::string StepRecordPath(const std::string& spool_dir, uint32_t job_id);
std::string StepSocketPath(const std::string& spool_dir, uint32_t job_id);
std::string StepOutcomePath(const std::string& spool_dir, uint32_t job_id);

// Writes `text` to `path` as a whole or not at all: a temporary file beside
// it, fsync when `durable`, rename, mode 0600. A crash of the writer leaves
// the old file or the new one; so does a crash of the machine when `durable`.
Status WriteFileAtomically(const std::string& path, const std::string& text, bool durable = true);

Status WriteStepRecord(const std::string& spool_dir, const wire::StepRecord& record);
Result<wire::StepRecord> ReadStepRecord(const std::string& spool_dir, uint32_t job_id);
Status WriteStepOutcome(const std::string& spool_dir, const wire::JobExitedRequest& outcome);
// None when the job has not ended (or its file cannot be read).
std::optional<wire::JobExitedRequest> ReadStepOutcome(const std::string& spool_dir,
                                                      uint32_t job_id);

// The jobs that have a step record in `spool_dir`, in ascending order.
std::vector<uint32_t> ListStepJobs(const std::string& spool_dir);

// Removes the job's record, socket and outcome (those that exist).
void RemoveStepFiles(const std::string& spool_dir, uint32_t job_id);

}  // namespace rota::noded
