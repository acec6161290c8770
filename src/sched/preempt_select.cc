#include "sched/preempt_select.h"

#include <algorithm>

#include "sched/select.h"

namespace rota::sched {
namespace {

// The cheapest victim first: lowest priority, then the one that ran least.
bool CheaperToDisplace(const PreemptCandidate& a, const PreemptCandidate& b) {
  if (a.priority != b.priority) return a.priority < b.priority;
  if (a.start_time != b.start_time) return a.start_time > b.start_time;
  return a.job_id > b.job_id;
}

// preempt_youngest_first: the one that ran least, then lowest priority.
bool YoungerToDisplace(const PreemptCandidate& a, const PreemptCandidate& b) {
  if (a.start_time != b.start_time) return a.start_time > b.start_time;
  if (a.priority != b.priority) return a.priority < b.priority;
  return a.job_id > b.job_id;
}

void Release(const ClusterModel& model, std::vector<NodeUsage>& usage, const Allocation& a) {
  for (const NodeAllocation& n : a.nodes) GiveBack(model, usage[n.node], n);
}

void Hold(const ClusterModel& model, std::vector<NodeUsage>& usage, const Allocation& a) {
  for (const NodeAllocation& n : a.nodes) Take(model, usage[n.node], n);
}

bool Touches(const PreemptCandidate& c, const Allocation& placement) {
  for (const NodeAllocation& v : c.allocation.nodes) {
    for (const NodeAllocation& p : placement.nodes) {
      if (v.node == p.node) return true;
    }
  }
  return false;
}

}  // namespace

std::optional<PreemptPlan> ChoosePreemptees(const ClusterModel& model,
                                            const std::vector<NodeUsage>& usage,
                                            const std::vector<uint32_t>& candidates,
                                            const Request& req,
                                            std::vector<PreemptCandidate> preemptable,
                                            bool youngest_first) {
  std::sort(preemptable.begin(), preemptable.end(),
            youngest_first ? YoungerToDisplace : CheaperToDisplace);
  // Only jobs on nodes the pending job may use can help it.
  std::vector<bool> usable(model.nodes.size(), false);
  for (uint32_t n : candidates) usable[n] = true;
  std::erase_if(preemptable, [&](const PreemptCandidate& c) {
    return std::none_of(c.allocation.nodes.begin(), c.allocation.nodes.end(),
                        [&](const NodeAllocation& a) { return usable[a.node]; });
  });

  std::vector<NodeUsage> trial = usage;
  size_t taken = 0;
  std::optional<Allocation> placement;
  while (taken < preemptable.size()) {
    Release(model, trial, preemptable[taken].allocation);
    ++taken;
    Selection s = Select(model, trial, candidates, req);
    if (s.allocation) {
      placement = std::move(s.allocation);
      break;
    }
  }
  if (!placement) return std::nullopt;

  // Spare again, the most valuable first, each victim that is not needed:
  // those off the placement's nodes at once, then any whose return still
  // leaves room.
  std::vector<bool> chosen(taken, true);
  for (size_t i = taken; i-- > 0;) {
    if (Touches(preemptable[i], *placement)) continue;
    Hold(model, trial, preemptable[i].allocation);
    chosen[i] = false;
  }
  for (size_t i = taken; i-- > 0;) {
    if (!chosen[i]) continue;
    Hold(model, trial, preemptable[i].allocation);
    Selection s = Select(model, trial, candidates, req);
    if (s.allocation) {
      chosen[i] = false;
      placement = std::move(s.allocation);
    } else {
      Release(model, trial, preemptable[i].allocation);
    }
  }
  PreemptPlan plan;
  plan.allocation = std::move(*placement);
  for (size_t i = 0; i < taken; ++i) {
    if (chosen[i]) plan.victims.push_back(preemptable[i].job_id);
  }
  return plan;
}

}  // namespace rota::sched
