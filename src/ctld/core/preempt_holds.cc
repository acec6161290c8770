#include "ctld/core/preempt_holds.h"

#include <string>

namespace rota::ctld {

void PreemptHolds::Note(const wire::JobRecord& job, const sched::ClusterModel& model) {
  if (holder_.empty()) holder_.assign(model.nodes.size(), 0);
  for (const std::string& name : job.preempt_nodes()) {
    int32_t node = model.IndexOf(name);
    if (node >= 0) holder_[static_cast<size_t>(node)] = job.job_id();
  }
}

void PreemptHolds::Drop(uint32_t job_id, std::vector<uint32_t>& usable) const {
  if (holder_.empty()) return;
  std::erase_if(usable, [&](uint32_t n) {
    uint32_t holder = holder_[n];
    return holder != 0 && (job_id == 0 || holder != job_id);
  });
}

}  // namespace rota::ctld
