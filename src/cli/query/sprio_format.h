#pragma once

// sprio's table: a format string of fields ("%.15i %9r %.10Y ...", '.' right
// justifies, the number is the width) over the controller's PriorityResponse.
// Capital letters show weighted values, small ones the factor in [0, 1].

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "priority.pb.h"

namespace rota::cli {

inline constexpr char kSprioDefaultFormat[] =
    "%.15i %9r %.10Y %.10S %.10A %.10F %.10J %.10P %.10Q %.20T";
// The default when PriorityWeightAssoc is set: with the ASSOC column.
inline constexpr char kSprioAssocFormat[] =
    "%.15i %9r %.10Y %.10S %.10A %.10B %.10F %.10J %.10P %.10Q %.20T";
inline constexpr char kSprioLongFormat[] =
    "%.15i %9r %.8u %.10Y %.10S %.10A %.10B %.10F %.10J %.10P %.10Q %.11N %.20T";

struct SprioOptions {
  std::string format = kSprioDefaultFormat;
  // -S: field letters, each after an optional '+' (ascending, the default)
  // or '-' (descending), comma separated or not; the first decides first.
  // Slurm's default: by job id.
  std::string sort = "i";
  bool no_header = false;
  bool weights = false;     // -w: one "Weights" line instead of the jobs
  bool normalized = false;  // -n: factors rather than weighted values
};

// -S's value checked: InvalidArgument "Invalid sort specification: X" for a
// letter sprio cannot sort by.
Status CheckSprioSort(std::string_view sort);

// The whole output, one line per job (or the weights line), each ending in '\n'.
// Unknown field letters are an error: `error` is set and "" returned.
std::string FormatSprio(const wire::PriorityResponse& response, const SprioOptions& options,
                        std::string* error);

}  // namespace rota::cli
