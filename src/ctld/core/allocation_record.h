#pragma once

// An allocation as the job record keeps it (wire::NodeAlloc: CPU ids, GPU
// indices, memory per node) and as the selection works with it.

#include "rota.pb.h"
#include "sched/allocation.h"
#include "sched/cluster_model.h"

namespace rota::ctld {

wire::NodeAlloc ToRecord(const sched::ClusterModel& model, const sched::NodeAllocation& a);
// The allocation `r` describes on node `node` (CPU ids back to slots).
// Writes a new allocation into `job`: nodes, allocs, and the summaries
// listings show (alloc_cpus, alloc_mem_mb, alloc_gpus, alloc_tres, and the
// per-node figures of the first node).
void RecordAllocation(const sched::ClusterModel& model, const sched::Allocation& allocation,
                      wire::JobRecord& job);
sched::NodeAllocation FromRecord(const sched::ClusterModel& model, uint32_t node,
                                 const wire::NodeAlloc& r);

}  // namespace rota::ctld
