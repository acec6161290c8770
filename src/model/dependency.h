#pragma once

// --dependency expressions: "afterok:12:13,afterany:14", "afterok:12?afternotok:13",
// "after:12+10" (minutes after 12 started), "singleton", array tasks "12_3".

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace rota::model {

enum class DependencyType { kAfter, kAfterAny, kAfterOk, kAfterNotOk, kAfterCorr, kSingleton };

struct DependencyTerm {
  DependencyType type;
  uint32_t job_id = 0;                    // 0 for singleton
  std::optional<uint32_t> array_task_id;  // "12_3"
  int64_t delay_secs = 0;                 // "after:12+10": 10 minutes
};

struct Dependency {
  std::vector<DependencyTerm> terms;
  bool any = false;  // Terms joined by '?': one satisfied term is enough.
};

// InvalidArgument ("Job dependency problem" is what the user is shown) on bad syntax.
Result<Dependency> ParseDependency(std::string_view text);

std::string_view DependencyTypeName(DependencyType t);

}  // namespace rota::model
