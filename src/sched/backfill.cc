#include "sched/backfill.h"

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>

#include "sched/failure_memo.h"
#include "sched/select.h"

namespace rota::sched {
namespace {

// The least a placement of `req` holds, summed over its nodes.
AvailabilityProfile::Totals LeastNeeded(const Request& req) {
  AvailabilityProfile::Totals t;
  t.cpus = int64_t{req.tasks} * std::max(1u, req.cpus_per_task);
  int64_t per_node_gpus = int64_t{req.gpus_per_node} * (req.nodes_fixed ? req.nodes : 1);
  t.gpus = std::max({int64_t{req.gpus_per_job}, int64_t{req.gpus_per_task} * req.tasks,
                     per_node_gpus});
  return t;
}

}  // namespace

BackfillResult PlanBackfill(const ClusterModel& model, AvailabilityProfile& profile,
                            const std::vector<BackfillJob>& jobs, const BackfillParams& params) {
  BackfillResult result;
  result.decisions.reserve(jobs.size());
  const int64_t now = profile.now();
  const int64_t horizon = params.window >= kForever - now ? kForever : now + params.window;
  std::vector<NodeUsage> scratch = profile.InitialUsage();
  std::map<uint32_t, uint32_t> tested_in_part;
  std::map<uint32_t, uint32_t> tested_of_user;
  std::map<uint32_t, uint32_t> reserved_in_part;
  // Within a pass resources are only booked, never given back, so an equal
  // request cannot start earlier than the last one did: its search resumes
  // there. The value is the earliest start still possible.
  std::unordered_map<std::string, int64_t> earliest_possible;

  for (const BackfillJob& job : jobs) {
    BackfillDecision& d = result.decisions.emplace_back();
    d.id = job.id;
    if (params.max_job_test > 0 && result.tested >= params.max_job_test) continue;
    if (params.max_job_part > 0 && tested_in_part[job.partition] >= params.max_job_part) continue;
    if (params.max_job_user > 0 && tested_of_user[job.user] >= params.max_job_user) continue;
    ++result.tested;
    ++tested_in_part[job.partition];
    ++tested_of_user[job.user];

    const bool may_reserve = job.may_reserve && (params.reserve_per_part == 0 ||
                                                 reserved_in_part[job.partition] <
                                                     params.reserve_per_part);
    const int64_t latest = may_reserve ? horizon : now;
    const int64_t duration = job.time_limit_s < 0 ? kForever : job.time_limit_s;
    std::string key = std::to_string(job.partition) + ' ' + std::to_string(duration) + ' ' +
                      Fingerprint(job.request);
    auto memo = earliest_possible.try_emplace(std::move(key), now).first;
    const AvailabilityProfile::Totals need = LeastNeeded(job.request);

    int64_t t = memo->second;
    bool found = false;
    while (t <= latest) {
      int64_t end = duration == kForever || t > kForever - duration ? kForever : t + duration;
      AvailabilityProfile::Totals free = profile.MinTotalsDuring(t, end);
      if (free.cpus >= need.cpus && free.gpus >= need.gpus) {
        profile.FreeDuring(t, end, *job.candidates, scratch);
        ++result.placements_tried;
        Selection s = Select(model, scratch, *job.candidates, job.request);
        if (s.allocation) {
          d.allocation = std::move(*s.allocation);
          d.start = t;
          found = true;
          profile.Book(t, end, d.allocation);
          break;
        }
      }
      t = profile.NextFreeingAfter(t);
    }
    // An equal request later in the pass cannot start before t: found, t is
    // taken now; not found, every candidate up to `latest` failed and t is
    // the next one.
    memo->second = t;
    if (!found) {
      d.outcome = BackfillOutcome::kNoPlan;
    } else if (d.start == now) {
      d.outcome = BackfillOutcome::kStartNow;
      ++result.started;
    } else {
      d.outcome = BackfillOutcome::kReserved;
      ++result.reserved;
      ++reserved_in_part[job.partition];
    }
  }
  return result;
}

}  // namespace rota::sched
