#pragma once

// Gang scheduling in the controller (PreemptMode=GANG, OverSubscribe=FORCE[:N]):
// the controller's side of sched/gang_rows.h, which decides. It finds each
// time-sliced partition's members in the job records, places new jobs in
// rows, and turns the decided running sets into suspend and resume effects
// (SIGSTOP and SIGCONT to the job's processes, as PreemptMode=SUSPEND does),
// with each slice's timer noted as a wake time. It owns the slices between
// passes; the rest it reads and changes through the job and node tables and
// job control's JobLifecycle. Owned by ControllerCore (state loop thread).

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "conf/cluster_config.h"
#include "ctld/core/effects.h"
#include "ctld/core/job_lifecycle.h"
#include "ctld/core/job_table.h"
#include "ctld/core/node_table.h"
#include "sched/gang_rows.h"
#include "sched/request.h"

namespace rota::ctld {

class GangPass {
 public:
  // REQUIRES: all three outlive it.
  GangPass(JobTable& jobs, NodeTable& nodes, JobLifecycle& lifecycle)
      : jobs_(jobs), nodes_(nodes), lifecycle_(lifecycle) {}

  // Called from Tick before the scheduling pass: each time-sliced
  // partition's running set for this moment (the next row's turn when its
  // slice is over; suspended jobs that share nothing with the running ones
  // run too), and the next slice's timer.
  void Tick(const conf::ClusterConfig& config, int64_t now, Effects& effects);
  // Pending `job_id` of a time-sliced partition: placed in the first row it
  // fits (sharing cores and GPUs with the jobs of the other rows); started,
  // or given its resources SUSPENDED until its turn. False: fits in no row.
  bool TryStart(const conf::ClusterConfig& config, uint32_t job_id, const sched::Request& request,
                const std::vector<uint32_t>& usable, int64_t now, Effects& effects);
  // The wall clock stepped: each row keeps the rest of its turn (`moved`
  // gives a time on the new clock).
  void ClockStepped(const std::function<int64_t(int64_t)>& moved);

 private:
  JobTable& jobs_;
  NodeTable& nodes_;
  JobLifecycle& lifecycle_;
  std::map<std::string, sched::gang::PartitionSlice> slices_;  // By partition
};

}  // namespace rota::ctld
