#pragma once

// sacct -B/--batch-script and --env-vars: what accounting kept of a batch
// job's script or submission environment (AccountingStoreFlags=job_script,
// job_env), each under a heading naming the job, in Slurm's layout.

#include <string>
#include <vector>

#include "accounting.pb.h"

namespace rota::cli {

enum class SacctJobText { kScript, kEnvironment };

// One block per job: "Batch Script for ID" (or "Environment used for ID
// (must be batch to display)"), a rule of 80 dashes, the text ("NONE" where
// none was kept) and an empty line.
std::string RenderSacctJobTexts(const std::vector<wire::AccountingJob>& jobs, SacctJobText which);

}  // namespace rota::cli
