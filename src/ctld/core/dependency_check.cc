#include "ctld/core/dependency_check.h"

#include "model/index_set.h"
#include "model/job_state.h"

namespace rota::ctld {
namespace {

bool IsActive(wire::JobState s) {
  return s == wire::JOB_STATE_PENDING || s == wire::JOB_STATE_RUNNING ||
         s == wire::JOB_STATE_SUSPENDED || s == wire::JOB_STATE_COMPLETING;
}

bool SucceededOk(const wire::JobRecord& j) {
  return j.state() == wire::JOB_STATE_COMPLETED && j.exit_code() == 0;
}

// One referenced job against one dependency type.
DependencyTermState Evaluate(model::DependencyType type, const wire::JobRecord& j, int64_t delay,
                             int64_t now) {
  using enum DependencyTermState;
  bool finished = model::IsFinished(j.state());
  switch (type) {
    case model::DependencyType::kAfter:
      if (j.state() == wire::JOB_STATE_CANCELLED) return kSatisfied;
      if (j.state() == wire::JOB_STATE_PENDING || j.array_meta()) return kPending;
      return now >= j.start_time() + delay ? kSatisfied : kPending;
    case model::DependencyType::kAfterAny:
      return finished ? kSatisfied : kPending;
    case model::DependencyType::kAfterOk:
    case model::DependencyType::kAfterCorr:
      if (!finished) return kPending;
      return SucceededOk(j) ? kSatisfied : kNever;
    case model::DependencyType::kAfterNotOk:
      if (!finished) return kPending;
      return SucceededOk(j) ? kNever : kSatisfied;
    case model::DependencyType::kSingleton:
      break;
  }
  return kSatisfied;
}

}  // namespace

DependencyTermState EvaluateDependencyTerm(const JobTable& jobs, const wire::JobRecord& job,
                                           const model::DependencyTerm& term, int64_t now,
                                           std::vector<const wire::JobRecord*>* named) {
  using enum DependencyTermState;
  if (term.type == model::DependencyType::kSingleton) {
    for (const auto& [id, other] : jobs) {
      if (id != job.job_id() && IsActive(other->state()) &&
          other->spec().uid() == job.spec().uid() && other->spec().name() == job.spec().name() &&
          id < job.job_id()) {
        if (named != nullptr) named->push_back(other.get());
        return kPending;
      }
    }
    return kSatisfied;
  }
  // The job itself, or every task of the array it names (pending ones too).
  bool all_satisfied = true;
  bool any_never = false;
  for (const auto& [id, other] : jobs) {
    bool is_named =
        id == term.job_id
            ? !term.array_task_id || other->array_task_id() == *term.array_task_id
            : other->array_job_id() == term.job_id &&
                  (!term.array_task_id || other->array_task_id() == *term.array_task_id);
    if (!is_named) continue;
    if (other->array_meta()) {
      if (!term.array_task_id || model::IndexSet::Parse(other->array_pending())
                                     .value_or({})
                                     .Contains(*term.array_task_id)) {
        all_satisfied = false;
        if (named != nullptr) named->push_back(other.get());
      }
      continue;
    }
    if (named != nullptr) named->push_back(other.get());
    DependencyTermState s = Evaluate(term.type, *other, term.delay_secs, now);
    all_satisfied &= s == kSatisfied;
    any_never |= s == kNever;
  }
  return any_never ? kNever : all_satisfied ? kSatisfied : kPending;
}

model::PendingReason DependencyReasonOf(const JobTable& jobs, const wire::JobRecord& job,
                                        int64_t now) {
  if (job.dependency_state().empty()) return "";
  Result<model::Dependency> dep = model::ParseDependency(job.dependency_state());
  if (!dep.ok()) return std::string(model::reason::kDependencyNeverSatisfied);
  int satisfied = 0;
  int never = 0;
  for (const model::DependencyTerm& term : dep->terms) {
    DependencyTermState state = EvaluateDependencyTerm(jobs, job, term, now);
    satisfied += state == DependencyTermState::kSatisfied;
    never += state == DependencyTermState::kNever;
  }
  int terms = static_cast<int>(dep->terms.size());
  if (dep->any) {
    if (satisfied > 0) return "";
    return never == terms ? std::string(model::reason::kDependencyNeverSatisfied)
                          : std::string(model::reason::kDependency);
  }
  if (never > 0) return std::string(model::reason::kDependencyNeverSatisfied);
  return satisfied == terms ? "" : std::string(model::reason::kDependency);
}

}  // namespace rota::ctld
