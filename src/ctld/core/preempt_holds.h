#pragma once

// Nodes held for pending preemptors (PreemptType=preempt/partition_prio): a
// job that displaced others waits for their nodes, and no other job may
// start there meanwhile. Rebuilt from the jobs' preempt_nodes at the start of
// each scheduling pass; empty when no node is held.

#include <cstdint>
#include <vector>

#include "rota.pb.h"
#include "sched/cluster_model.h"

namespace rota::ctld {

class PreemptHolds {
 public:
  void Clear() { holder_.clear(); }
  // `job`'s preempt_nodes are held for it.
  void Note(const wire::JobRecord& job, const sched::ClusterModel& model);
  // Removes from `usable` (node indices) the nodes held for a job other than
  // `job_id`; 0: every held node.
  void Drop(uint32_t job_id, std::vector<uint32_t>& usable) const;

 private:
  std::vector<uint32_t> holder_;  // By node index: the job it is held for; 0 none
};

}  // namespace rota::ctld
