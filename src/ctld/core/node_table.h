#pragma once

// The controller's live view of its nodes: configured hardware, whether the
// node daemon answers, admin drain/down marks, and what is allocated.
// Owned by the state loop thread (through ControllerCore).

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "conf/cluster_config.h"
#include "rota.pb.h"
#include "sched/allocation.h"
#include "sched/cluster_model.h"

namespace rota::ctld {

struct NodeRuntime {
  const conf::NodeConfig* config = nullptr;
  bool responding = false;  // Registered and heartbeating
  bool drain = false;
  bool admin_down = false;
  // DOWN because the node daemon fell silent for SlurmdTimeout ("Not
  // responding"); ReturnToService decides whether registering clears it.
  bool down_not_responding = false;
  int64_t last_heard = 0;  // When the node daemon last registered; 0: never
  // Why the last registration's hardware falls short of the configuration, in
  // Slurm's words; "" when it does not (or SlurmdParameters=config_overrides).
  std::string hardware_shortfall;
  std::string reason;
  int64_t reason_time = 0;
  uint32_t reason_uid = 0;
  int64_t boot_time = 0;
  uint32_t alloc_cpus = 0;
  MemoryMb alloc_mem_mb = 0;
  std::map<std::string, uint32_t> alloc_gpus;  // By type
  uint32_t running_jobs = 0;  // Jobs holding resources here, COMPLETING ones included
  // Of those, jobs holding GPUs here whose first node is another: the GPU
  // shares its rotad watches for idleness (ControllerCore::GpuSharesOn).
  uint32_t gpu_share_jobs = 0;
  // Jobs here that ended but whose cleanup (kill, Epilog) is not reported yet:
  // the node shows "+COMPLETING" meanwhile.
  uint32_t completing_jobs = 0;

  bool Usable() const { return responding && !drain && !admin_down && !down_not_responding; }
  // As scontrol prints it: IDLE, MIXED, ALLOCATED, DOWN, UNKNOWN, with
  // "+COMPLETING", "+DRAIN" and a "*" suffix when the node daemon does not answer ("IDLE+DRAIN",
  // "DOWN*").
  std::string StateName() const;
  uint32_t AllocGpus() const;
};

class NodeTable {
 public:
  explicit NodeTable(const conf::ClusterConfig& config);

  NodeRuntime* Find(const std::string& name);
  const NodeRuntime* Find(const std::string& name) const;
  std::vector<NodeRuntime>& nodes() { return nodes_; }
  const std::vector<NodeRuntime>& nodes() const { return nodes_; }

  // The cluster as the selection sees it, and what is free on each node
  // (parallel to nodes()).
  const sched::ClusterModel& model() const { return model_; }
  // The partition's nodes that can take jobs now (indices into model()); the
  // others' names go to `unavailable`.
  struct Candidates {
    std::vector<uint32_t> usable;
    std::vector<std::string> unavailable;
  };
  Candidates CandidatesIn(const conf::PartitionConfig& partition) const;
  const std::vector<sched::NodeUsage>& usage() const { return usage_; }

  // Takes the job's allocation (record fields nodes and allocs) / gives it back.
  void Allocate(const wire::JobRecord& job);
  void Release(const wire::JobRecord& job);
  // Counts the job as COMPLETING on each of its nodes (sign +1) or no longer (-1).
  void MarkCompleting(const wire::JobRecord& job, int sign);
  // For a running job recorded before allocations were exact (counts only):
  // its allocs, lowest free ids first. Empty when a node is gone.
  std::vector<wire::NodeAlloc> LegacyAllocs(const wire::JobRecord& job) const;

  wire::NodeRecord ToRecord(const NodeRuntime& n) const;
  void ApplyRecord(const wire::NodeRecord& r);

 private:
  // Keeps the runtime's counters (shown by scontrol and sinfo) in step.
  // `share`: the allocation is a GPU share (see NodeRuntime::gpu_share_jobs).
  void Count(NodeRuntime& n, const sched::NodeAllocation& a, int sign, bool share);

  std::vector<NodeRuntime> nodes_;
  std::map<std::string, size_t> index_;
  sched::ClusterModel model_;
  std::vector<sched::NodeUsage> usage_;
};

}  // namespace rota::ctld
