#pragma once

// Gang scheduling (PreemptMode=GANG with a partition's OverSubscribe=FORCE[:N]):
// the decisions, pure. Jobs of such a partition may be given cores and GPUs
// that other jobs of the partition already hold, up to N jobs on each. Each
// job belongs to one of N rows, and the jobs of one row share nothing; the
// rows take turns: every SchedulerTimeSlice the next row's jobs run and those
// of the other rows that would share a core or GPU with them are suspended.
// Jobs of other rows that share nothing with the running ones run as well, so
// a job alone on its resources never stops.
//
// The controller's side (ctld/core/gang_pass.cc) applies these decisions with the
// existing suspend/resume effects and arms the slice timer; `now` is always
// an argument.

#include <cstdint>
#include <vector>

#include "conf/cluster_config.h"
#include "sched/allocation.h"

namespace rota::sched::gang {

// The rows `partition` time-slices over: its FORCE count
// (conf::ForceShareCount) when the cluster's PreemptMode names GANG and the
// count is above 1; 0 when its jobs are not time-sliced.
uint32_t RowsOf(const conf::ClusterConfig& config, const conf::PartitionConfig& partition);

// Whether the two allocations hold a common core or GPU on some node (an
// exclusive hold overlaps anything on its node).
bool Overlap(const sched::Allocation& a, const sched::Allocation& b);

// A job taking part in its partition's time-slicing.
struct Member {
  uint32_t job_id = 0;
  uint32_t row = 0;              // 0-based
  sched::Allocation allocation;  // Its cores and GPUs, while suspended too
};

// The jobs that run in a slice of `row`: the members in `keep` (ascending
// ids; those already running, mid-slice), then every member of `row`, then,
// row after row from the next one on (wrapping), in job id order, each member
// that overlaps none already chosen. Ascending job ids.
std::vector<uint32_t> RunningSet(const std::vector<Member>& members, uint32_t row, uint32_t rows,
                                 const std::vector<uint32_t>& keep = {});

// The next row after `row` (wrapping over `rows`) that has a member; `row`
// itself when no other has one.
uint32_t NextRow(const std::vector<Member>& members, uint32_t row, uint32_t rows);

// Per partition, between passes. Owned by the controller's GangPass (state loop thread);
// in memory only: after a restart the rows are read back from the job
// records and the first pass starts a fresh slice.
struct PartitionSlice {
  uint32_t row = 0;         // The row whose turn it is
  int64_t next_switch = 0;  // When the next row's turn comes; 0: no slice running
};

}  // namespace rota::sched::gang
