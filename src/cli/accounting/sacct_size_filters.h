#pragma once

// sacct's filters by size and limit: -i/--nnodes, -I/--ncpus (MIN[-MAX]),
// -k/--timelimit-min with -K/--timelimit-max, and -R/--reason. sacct applies
// them to what rotadbd sent, as it does -N and --name. Pure.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "accounting.pb.h"
#include "common/status.h"

namespace rota::cli {

struct CountRange {
  uint64_t min = 0;
  uint64_t max = UINT64_MAX;
};

// "4" (exactly 4) or "2-8". Errors name the text.
Result<CountRange> ParseCountRange(std::string_view text);

struct SacctSizeFilters {
  std::optional<CountRange> nodes;     // -i: nodes the job ran on
  std::optional<CountRange> cpus;      // -I: CPUs it held
  std::optional<int64_t> limit_min_s;  // -k: time limit at least this
  std::optional<int64_t> limit_max_s;  // -K: and at most this (only with -k, as Slurm)
  std::vector<std::string> reasons;    // -R: the reason it last waited for

  // Whether `job` passes every filter given.
  bool Pass(const wire::AccountingJob& job) const;
};

}  // namespace rota::cli
