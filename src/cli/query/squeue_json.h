#pragma once

// `squeue --json`: the jobs as JSON, with the field names Slurm 22.05's
// data_parser uses for the ones Rota has (job_id, job_state, state_reason, ...).

#include <nlohmann/json.hpp>
#include <span>
#include <string>

#include "rota.pb.h"

namespace rota::cli {

std::string SqueueJson(std::span<const wire::JobRecord> jobs, int64_t now);

// The "meta" block of Slurm 22.05's JSON: the plugin (openapi/v0.0.38, or
// openapi/dbv0.0.38 for accounting's) and the Slurm version. squeue --json
// and every rotarestd answer carry it.
nlohmann::ordered_json OpenApiMeta(bool accounting);

// One job as `squeue --json` and slurmrestd's /slurm/v0.0.38/jobs give it.
nlohmann::ordered_json JobJson(const wire::JobRecord& job, int64_t now);

}  // namespace rota::cli
