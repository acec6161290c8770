#include "cli/scancel_filters.h"

#include <algorithm>

#include "model/job_state.h"

namespace rota::cli {
namespace {

bool Passes(const std::vector<std::string>& wanted, const std::string& value) {
  return wanted.empty() || std::find(wanted.begin(), wanted.end(), value) != wanted.end();
}

std::string JobIdText(const wire::JobRecord& job) {
  if (job.array_job_id() != 0 && !job.array_meta()) {
    return std::to_string(job.array_job_id()) + "_" + std::to_string(job.array_task_id());
  }
  return std::to_string(job.job_id());
}

}  // namespace

std::vector<std::string> JobsPassingFilters(const std::vector<wire::JobRecord>& jobs,
                                            const ScancelListFilters& filters) {
  std::vector<std::string> ids;
  for (const wire::JobRecord& job : jobs) {
    if (model::IsFinished(job.state())) continue;
    const wire::JobSpec& spec = job.spec();
    if (!Passes(filters.accounts, spec.account()) || !Passes(filters.qos, spec.qos()) ||
        !Passes(filters.reservations, spec.reservation()) ||
        !Passes(filters.wckeys, spec.wckey())) {
      continue;
    }
    if (!filters.nodes.empty() &&
        std::none_of(job.nodes().begin(), job.nodes().end(), [&](const std::string& n) {
          return std::find(filters.nodes.begin(), filters.nodes.end(), n) != filters.nodes.end();
        })) {
      continue;
    }
    ids.push_back(JobIdText(job));
  }
  return ids;
}

}  // namespace rota::cli
