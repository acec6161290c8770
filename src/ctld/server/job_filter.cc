#include "ctld/server/job_filter.h"

#include <algorithm>
#include <string>

#include "common/strings.h"
#include "model/job_state.h"

namespace rota::ctld {
namespace {

template <typename List>
bool Contains(const List& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

bool IdMatches(const wire::JobRecord& job, const std::string& text) {
  std::string own = std::to_string(job.job_id());
  if (text == own) return true;
  if (job.array_job_id() == 0) return false;
  std::string array = std::to_string(job.array_job_id());
  if (text == array) return true;
  return !job.array_meta() && text == array + "_" + std::to_string(job.array_task_id());
}

}  // namespace

bool JobMatches(const wire::JobRecord& job, const wire::ListJobsRequest& request) {
  if (!request.job_ids().empty()) {
    bool any = std::any_of(request.job_ids().begin(), request.job_ids().end(),
                           [&](const std::string& id) { return IdMatches(job, id); });
    if (!any) return false;
  }
  if (!request.users().empty() && !Contains(request.users(), job.spec().user()) &&
      !Contains(request.users(), std::to_string(job.spec().uid()))) {
    return false;
  }
  if (!request.partitions().empty() && !Contains(request.partitions(), job.spec().partition()))
    return false;
  if (!request.accounts().empty() && !Contains(request.accounts(), job.spec().account()))
    return false;
  if (!request.qos().empty() && !Contains(request.qos(), job.spec().qos())) return false;
  if (!request.names().empty() && !Contains(request.names(), job.spec().name())) return false;
  if (!request.states().empty()) {
    bool any =
        std::any_of(request.states().begin(), request.states().end(), [&](const std::string& s) {
          if (EqualsIgnoreCase(s, "all")) return true;
          wire::JobState parsed;
          return model::ParseJobState(s, &parsed) && parsed == job.state();
        });
    return any;
  }
  if (model::IsFinished(job.state()) && request.job_ids().empty() && !request.include_finished()) {
    return false;
  }
  return true;
}

}  // namespace rota::ctld
