#include "ctld/core/queue_order.h"

#include <algorithm>
#include <utility>

namespace rota::ctld {

namespace {

sched::QueueKey KeyOf(const wire::JobRecord& job, uint32_t tier) {
  return {tier, job.priority(), job.submit_time(), job.job_id()};
}

}  // namespace

void SortQueue(std::vector<const wire::JobRecord*>& queue, const conf::ClusterConfig& config) {
  // Most clusters give all partitions one tier: then the tier orders nothing
  // and the pass need not look any partition up.
  const bool one_tier = std::all_of(
      config.partitions.begin(), config.partitions.end(),
      [&](const auto& p) { return p.priority_tier == config.partitions.front().priority_tier; });
  if (one_tier) {
    std::stable_sort(queue.begin(), queue.end(),
                     [](const wire::JobRecord* a, const wire::JobRecord* b) {
                       return sched::QueuedBefore(KeyOf(*a, 0), KeyOf(*b, 0));
                     });
    return;
  }
  // Tiers looked up once per job (the queue is mostly runs of one partition),
  // so the comparisons touch no names.
  std::vector<std::pair<uint32_t, const wire::JobRecord*>> keyed;
  keyed.reserve(queue.size());
  const conf::PartitionConfig* last = nullptr;
  for (const wire::JobRecord* job : queue) {
    const std::string& name = job->spec().partition();
    if (last == nullptr || last->name != name) {
      if (const conf::PartitionConfig* p = config.FindPartition(name)) last = p;
    }
    keyed.emplace_back(last != nullptr && last->name == name ? last->priority_tier : 0, job);
  }
  std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) {
    return sched::QueuedBefore(KeyOf(*a.second, a.first), KeyOf(*b.second, b.first));
  });
  for (size_t i = 0; i < keyed.size(); ++i) queue[i] = keyed[i].second;
}

}  // namespace rota::ctld
