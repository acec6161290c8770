#include "sched/backfill.h"

#include <algorithm>
#include <bit>
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
  t.gpus =
      std::max({int64_t{req.gpus_per_job}, int64_t{req.gpus_per_task} * req.tasks, per_node_gpus});
  return t;
}

// The least one node of a placement of `req` holds: a node with less free
// cannot take a share, so the selection need not see it.
struct NodeShare {
  uint32_t cpus = 1;
  uint32_t gpus = 0;
  uint32_t nodes = 1;  // Nodes the placement needs at least
};

NodeShare LeastShare(const Request& req) {
  NodeShare s;
  uint32_t tasks_here = std::max(1u, req.tasks_per_node);
  s.cpus = std::max(1u, req.cpus_per_task) * tasks_here;
  s.gpus = std::max(req.gpus_per_node, req.gpus_per_task * tasks_here);
  if (s.gpus == 0 && req.wants_gpus()) s.gpus = 1;
  s.nodes = req.nodes_fixed ? std::max(1u, req.nodes) : 1;
  return s;
}

// Nodes set in both bit sets.
size_t CountBoth(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b) {
  size_t n = 0;
  for (size_t w = 0; w < a.size() && w < b.size(); ++w) {
    n += static_cast<size_t>(std::popcount(a[w] & b[w]));
  }
  return n;
}

bool IsSet(const std::vector<uint64_t>& bits, uint32_t n) {
  return (bits[n >> 6] >> (n & 63)) & 1u;
}

// A reservation for later, kept off the nodes that are wholly idle now as
// far as it can be: those are what the jobs behind it can start on at once
// and run past it (EASY's "extra" processors). First a placement on the
// other nodes alone, in the usual order; failing that, one on all of them
// with the idle nodes ranked last. `place(among)` is the usual placement
// among the nodes of `among` (the walk) or, null, of `candidates`.
template <typename Place>
Selection PlaceOffIdleNodes(const ClusterModel& model, const std::vector<NodeUsage>& usage,
                            const std::vector<uint64_t>& idle_now,
                            const std::vector<uint64_t>* walk_among,
                            const std::vector<uint64_t>& open,
                            const std::vector<uint32_t>& candidates, const Request& req,
                            Place place) {
  std::vector<uint32_t> all;  // The candidates open at the reserved time, ranked
  if (walk_among != nullptr) {
    std::vector<uint64_t> busy(walk_among->size());
    bool any_idle = false;
    for (size_t w = 0; w < busy.size(); ++w) {
      const uint64_t here = (*walk_among)[w] & open[w];
      busy[w] = (*walk_among)[w] & ~idle_now[w];
      any_idle = any_idle || (here & idle_now[w]) != 0;
    }
    if (!any_idle) return place(walk_among);
    Selection s = place(&busy);
    if (s.allocation) return s;
    for (size_t w = 0; w < busy.size(); ++w) {
      for (uint64_t b = (*walk_among)[w] & open[w]; b != 0; b &= b - 1) {
        all.push_back(static_cast<uint32_t>(w * 64 + static_cast<size_t>(std::countr_zero(b))));
      }
    }
  } else {
    std::vector<uint32_t> busy;
    for (uint32_t n : candidates) {
      if (!IsSet(idle_now, n)) busy.push_back(n);
    }
    if (busy.size() == candidates.size()) return place(nullptr);
    Selection s = Select(model, usage, busy, req);
    if (s.allocation) return s;
    all = candidates;
  }
  const NodeRank idle_last = [&idle_now](uint32_t n) { return uint64_t{IsSet(idle_now, n)}; };
  return Select(model, usage, all, req, idle_last);
}

}  // namespace

BackfillResult PlanBackfill(const ClusterModel& model, AvailabilityProfile& profile,
                            const std::vector<BackfillJob>& jobs, const BackfillParams& params,
                            const BackfillControl& control) {
  BackfillResult result;
  const int64_t now = profile.now();
  const int64_t horizon = params.window >= kForever - now ? kForever : now + params.window;
  std::vector<uint32_t> open_nodes;
  // Each candidate list as a node bit set, made once (empty: not ascending).
  std::map<const std::vector<uint32_t>*, std::vector<uint64_t>>
      partition_bits;  // Candidates with a free core in the interval
  std::map<uint32_t, uint32_t> tested_in_part;
  std::map<uint32_t, uint32_t> tested_of_user;
  std::map<uint32_t, uint32_t> reserved_in_part;
  // Within a pass resources are only booked, never given back, so an equal
  // request cannot start earlier than the last one did: its search resumes
  // there. The value is the earliest start still possible.
  // Each kind of request keeps a view of its own (see FreeDuring), so that
  // its search moves forward from where it stopped.
  struct KindState {
    int64_t earliest_possible = 0;
    size_t view = 0;
    bool walks = false;  // Its selection walks the view's node order (SelectInOrder)
  };
  std::unordered_map<std::string, KindState> kinds;
  // The wholly idle nodes now (IdleNowBits), made at the first reservation
  // for later and kept in step with the jobs started since.
  std::vector<uint64_t> idle_now;

  result.decisions.resize(jobs.size());
  for (size_t i = 0; i < jobs.size(); ++i) {
    const BackfillJob& job = jobs[i];
    BackfillDecision& d = result.decisions[i];
    d.id = job.id;
    if (!job.carried || job.kept == nullptr) continue;
    // Booked from now at the earliest: a kept start that has come is still
    // the job's to take, and this pass does not move it.
    const int64_t start = std::max(job.kept->start, now);
    const int64_t end = job.time_limit_s < 0 || start > kForever - job.time_limit_s
                            ? kForever
                            : start + job.time_limit_s;
    profile.Book(start, end, job.kept->allocation);
    d.outcome = BackfillOutcome::kReserved;
    d.start = start;
    d.allocation = job.kept->allocation;
    ++result.reserved;
    ++reserved_in_part[job.partition];
  }

  for (size_t i = 0; i < jobs.size(); ++i) {
    const BackfillJob& job = jobs[i];
    BackfillDecision& d = result.decisions[i];
    if (result.out_of_time || result.start_limit_reached) continue;
    ++result.considered;
    if (job.carried) continue;
    if (params.max_job_test > 0 && result.tested >= params.max_job_test) continue;
    if (params.max_job_part > 0 && tested_in_part[job.partition] >= params.max_job_part) continue;
    if (params.max_job_user > 0 && tested_of_user[job.user] >= params.max_job_user) continue;
    ++result.tested;
    ++tested_in_part[job.partition];
    ++tested_of_user[job.user];

    const bool may_reserve =
        job.may_reserve &&
        (params.reserve_per_part == 0 || reserved_in_part[job.partition] < params.reserve_per_part);
    const int64_t latest = may_reserve ? horizon : now;
    const int64_t duration = job.time_limit_s < 0 ? kForever : job.time_limit_s;
    const AvailabilityProfile::Totals need = LeastNeeded(job.request);
    if (latest == now) {
      // Only a start now may come of it (EASY's jobs behind the reservation):
      // when the totals free from now on fall short, the search below would
      // fail at once; most jobs of a deep queue end here, without a key.
      const int64_t end =
          duration == kForever || now > kForever - duration ? kForever : now + duration;
      const AvailabilityProfile::Totals free = profile.MinTotalsDuring(now, end);
      if (free.cpus < need.cpus || free.gpus < need.gpus) {
        d.outcome = BackfillOutcome::kNoPlan;
        result.last_tested = static_cast<int64_t>(i);
        if (control.time_is_up && i + 1 < jobs.size() && control.time_is_up()) {
          result.out_of_time = true;
        }
        continue;
      }
    }
    // Bytes, not text (see Fingerprint): the request's key is self-delimiting,
    // so the partition and duration can follow it.
    std::string key = Fingerprint(job.request);
    key.append(reinterpret_cast<const char*>(&job.partition), sizeof job.partition);
    key.append(reinterpret_cast<const char*>(&duration), sizeof duration);
    auto [memo, fresh] = kinds.try_emplace(std::move(key));
    if (fresh) {
      // A view keeps its node order in step only once a kind that walks it
      // asks for it; a partition of a small part of the cluster is cheaper
      // to scan than to pick out of the order.
      bool walks =
          job.candidates->size() * 4 >= model.nodes.size() && WalksInOrder(model, job.request);
      memo->second = {now, kinds.size() - 1, walks};
    }
    const NodeShare share = LeastShare(job.request);

    int64_t t = memo->second.earliest_possible;
    bool found = false;
    while (t <= latest) {
      int64_t end = duration == kForever || t > kForever - duration ? kForever : t + duration;
      AvailabilityProfile::Totals free = profile.MinTotalsDuring(t, end);
      if (free.cpus >= need.cpus && free.gpus >= need.gpus) {
        const size_t view = memo->second.view;
        const std::vector<NodeUsage>& usage =
            profile.FreeDuring(t, end, view, {share.cpus, share.gpus});
        // Too few nodes can take a share: no placement. (The view counts over
        // the whole cluster, an upper bound for the partition.)
        if (profile.OpenCount(view) < share.nodes) {
          t = profile.NextFreeingAfter(t);
          continue;
        }
        // Nodes that cannot take a share change no choice: the selection
        // sees only the open ones and is spared most of a full cluster.
        const std::vector<uint32_t>* candidates = job.candidates;
        const std::vector<uint64_t>* walk_among = nullptr;
        if (job.request.required_nodes.empty()) {
          auto [bits, added] = partition_bits.try_emplace(job.candidates);
          if (added && std::is_sorted(job.candidates->begin(), job.candidates->end())) {
            bits->second = profile.NodeBits(*job.candidates);
          }
          if (memo->second.walks && !bits->second.empty()) {
            walk_among = &bits->second;
            if (CountBoth(bits->second, profile.OpenBits(view)) < share.nodes) {
              t = profile.NextFreeingAfter(t);
              continue;
            }
          } else if (!bits->second.empty()) {
            profile.OpenNodes(view, bits->second, open_nodes);
          } else {  // Candidates in an order of their own: keep it.
            open_nodes.clear();
            for (uint32_t n : *job.candidates) {
              if (profile.IsOpen(view, n)) open_nodes.push_back(n);
            }
          }
          if (walk_among == nullptr) {
            candidates = &open_nodes;
            if (candidates->size() < share.nodes) {
              t = profile.NextFreeingAfter(t);
              continue;
            }
          }
        }
        ++result.placements_tried;
        auto place = [&](const std::vector<uint64_t>* among) {
          return among != nullptr ? SelectInOrder(model, usage, profile.Order(view), *among,
                                                  &profile.OpenBits(view), job.request)
                                  : Select(model, usage, *candidates, job.request);
        };
        Selection s;
        if (t > now && params.reserve_busy_nodes) {
          if (idle_now.empty()) idle_now = profile.IdleNowBits();
          s = PlaceOffIdleNodes(model, usage, idle_now, walk_among, profile.OpenBits(view),
                                *candidates, job.request, place);
        } else {
          s = place(walk_among);
        }
        if (s.allocation) {
          d.allocation = std::move(*s.allocation);
          d.start = t;
          found = true;
          profile.Book(t, end, d.allocation);
          if (t == now && !idle_now.empty()) {
            for (const NodeAllocation& a : d.allocation.nodes) {
              idle_now[a.node >> 6] &= ~(uint64_t{1} << (a.node & 63));
            }
          }
          break;
        }
      }
      t = profile.NextFreeingAfter(t);
    }
    // An equal request later in the pass cannot start before t: found, t is
    // taken now; not found, every candidate up to `latest` failed and t is
    // the next one.
    memo->second.earliest_possible = t;
    if (!found) {
      d.outcome = BackfillOutcome::kNoPlan;
    } else if (d.start == now) {
      d.outcome = BackfillOutcome::kStartNow;
      ++result.started;
      result.start_limit_reached =
          params.max_job_start > 0 && result.started >= params.max_job_start;
    } else {
      d.outcome = BackfillOutcome::kReserved;
      ++result.reserved;
      ++reserved_in_part[job.partition];
    }
    result.last_tested = static_cast<int64_t>(i);
    if (control.time_is_up && i + 1 < jobs.size() && control.time_is_up()) {
      result.out_of_time = true;
    }
  }
  return result;
}

bool SomeJobMayStartNow(const ClusterModel& model, const std::vector<NodeUsage>& usage_now,
                        const std::vector<BackfillJob>& jobs) {
  // The free totals a profile starts from (an upper bound of what any
  // placement now can have), as MinTotalsDuring would give them at now.
  AvailabilityProfile::Totals free;
  for (size_t n = 0; n < usage_now.size() && n < model.nodes.size(); ++n) {
    free.cpus += int64_t{usage_now[n].free_count} * model.nodes[n].cpus_per_slot();
    free.gpus += std::popcount(usage_now[n].free_gpus);
  }
  return std::any_of(jobs.begin(), jobs.end(), [&](const BackfillJob& job) {
    if (job.carried) return false;
    const AvailabilityProfile::Totals need = LeastNeeded(job.request);
    return need.cpus <= free.cpus && need.gpus <= free.gpus;
  });
}

}  // namespace rota::sched
