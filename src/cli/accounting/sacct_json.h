#pragma once
// sacct --json: the records in the shape Slurm 22.05's sacct prints them
// (openapi/dbv0.0.38), so that scripts written against Slurm read Rota's
// output unchanged: one object per job attempt under "jobs", times as epoch
// seconds, the time limit in minutes, TRES as {type, name, id, count} lists.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "accounting.pb.h"

namespace rota::cli {

// "cpu=4,gres/gpu:a100=2,mem=8G" -> [{type, name, id, count}...], memory in
// megabytes as Slurm counts it, Slurm's fixed ids for its own TRES (cpu 1,
// mem 2, energy 3, node 4, billing 5) and 1001 for the rest. A string that
// does not parse (an older record) gives an empty list rather than a half one.
nlohmann::ordered_json TresListJson(const std::string& tres);

// The "jobs" array alone, one object per record, in the order given; what
// rotarestd's /slurmdb/v0.0.38/jobs answers too. `now` gives running jobs
// their elapsed time so far.
nlohmann::ordered_json SacctJobsJson(const std::vector<wire::AccountingJob>& jobs, int64_t now);

// The whole document: "meta", "errors" and SacctJobsJson's "jobs".
std::string SacctJson(const std::vector<wire::AccountingJob>& jobs, int64_t now);

}  // namespace rota::cli
