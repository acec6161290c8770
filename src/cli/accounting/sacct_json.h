#pragma once
// sacct --json: the records in the shape Slurm 22.05's sacct prints them
// (openapi/dbv0.0.38), so that scripts written against Slurm read Rota's
// output unchanged: one object per job attempt under "jobs", times as epoch
// seconds, the time limit in minutes, TRES as {type, name, id, count} lists.
#include <string>
#include <vector>

#include "accounting.pb.h"

namespace rota::cli {

// `now` gives running jobs their elapsed time so far.
std::string SacctJson(const std::vector<wire::AccountingJob>& jobs, int64_t now);

}  // namespace rota::cli
