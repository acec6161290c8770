#include "cli/scancel_filters.h"

#include <algorithm>

#include "model/job_state.h"

namespace rota::cli {
namespace {

bool Passes(const std::vector<std::string>& wanted, const std::string& value) {
  return wanted.empty() || std::find(wanted.begin(), wanted.end(), value) != wanted.end();
}

}  // namespace

std::string ScancelJobId(const wire::JobRecord& job) {
  if (job.array_job_id() != 0 && !job.array_meta()) {
    return std::to_string(job.array_job_id()) + "_" + std::to_string(job.array_task_id());
  }
  return std::to_string(job.job_id());
}

std::vector<const wire::JobRecord*> JobsPassingFilters(const std::vector<wire::JobRecord>& jobs,
                                                       const ScancelListFilters& filters) {
  std::vector<const wire::JobRecord*> passing;
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
    passing.push_back(&job);
  }
  return passing;
}

std::vector<std::string> ConfirmedJobs(const std::vector<const wire::JobRecord*>& jobs,
                                       std::istream& in, std::ostream& out,
                                       const std::string& step) {
  std::vector<std::string> confirmed;
  for (const wire::JobRecord* job : jobs) {
    const std::string id = ScancelJobId(*job);
    for (;;) {
      if (step.empty()) {
        out << "Cancel job_id=" << id;
      } else {
        out << "Cancel step_id=" << id << "." << step;
      }
      out << " name=" << job->spec().name() << " partition=" << job->spec().partition()
          << " [y/n]? " << std::flush;
      std::string answer;
      if (!std::getline(in, answer)) return confirmed;  // No more answers: no
      if (!answer.empty() && (answer[0] == 'y' || answer[0] == 'Y')) {
        confirmed.push_back(id);
        break;
      }
      if (!answer.empty() && (answer[0] == 'n' || answer[0] == 'N')) break;
    }
  }
  return confirmed;
}

}  // namespace rota::cli
