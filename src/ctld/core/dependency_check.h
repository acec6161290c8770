#pragma once

// --dependency against the job table: whether each term of a pending job's
// dependency is met, still awaited, or can never be, and the pending reason
// that follows. Read only; the scheduling pass and `rota why` share it.

#include <cstdint>
#include <vector>

#include "ctld/core/job_table.h"
#include "model/dependency.h"
#include "model/pending_reason.h"
#include "rota.pb.h"

namespace rota::ctld {

enum class DependencyTermState { kSatisfied, kPending, kNever };

// Term `term` of `job`'s dependency at `now`. `named` (optional) receives the
// jobs the term names: the job itself, or the array's tasks (singleton: the
// earlier active job of the same user and name that holds it).
DependencyTermState EvaluateDependencyTerm(const JobTable& jobs, const wire::JobRecord& job,
                                           const model::DependencyTerm& term, int64_t now,
                                           std::vector<const wire::JobRecord*>* named = nullptr);

// Dependency or DependencyNeverSatisfied while `job`'s --dependency holds it;
// none once it is satisfied (or it has none).
model::PendingReason DependencyReasonOf(const JobTable& jobs, const wire::JobRecord& job,
                                        int64_t now);

}  // namespace rota::ctld
