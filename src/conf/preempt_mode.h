#pragma once

// What PreemptType / PreemptMode (slurm.conf, cluster-wide or per partition)
// make of a running job that a preemptor displaces. Pure.

#include <cstdint>
#include <string_view>

#include "conf/cluster_config.h"

namespace rota::conf {

inline constexpr std::string_view kPreemptPartitionPrio = "preempt/partition_prio";
inline constexpr std::string_view kPreemptQos = "preempt/qos";

enum class PreemptAction { kOff, kCancel, kRequeue, kSuspend };

// A PreemptMode value ("REQUEUE", "SUSPEND,GANG"): its first of OFF, CANCEL,
// REQUEUE, SUSPEND (GANG and WITHIN alone mean OFF: time-slicing is not done).
PreemptAction ParsePreemptAction(std::string_view modes);

// The partition's PreemptMode, else the cluster's.
PreemptAction PreemptActionOf(const ClusterConfig& config, const PartitionConfig& partition);
// The cluster's PreemptMode.
PreemptAction ClusterPreemptAction(const ClusterConfig& config);

// Whether any partition (or the cluster) may suspend jobs under
// preempt/partition_prio, or the cluster under preempt/qos: the configuration
// then earns a warning, since a suspended job keeps its GPUs' memory.
bool MaySuspendJobs(const ClusterConfig& config);

// Jobs per core or GPU that a partition's OverSubscribe lets gang scheduling
// time-slice: N for "FORCE:N", 4 for "FORCE" (Slurm's default); 0 otherwise.
uint32_t ForceShareCount(std::string_view oversubscribe);
// Whether the cluster's PreemptMode names GANG.
bool GangEnabled(const ClusterConfig& config);
// Whether gang scheduling time-slices some partition (GANG, and a partition
// with OverSubscribe=FORCE above 1): it suspends jobs, so it earns a warning.
bool TimeSlicesJobs(const ClusterConfig& config);

// The warnings, as the log and `scontrol show config` give them.
inline constexpr std::string_view kSuspendGpuWarning =
    "PreemptMode=SUSPEND: a suspended job keeps its memory on the node and on its GPUs; "
    "the preemptor may not find the GPU memory it needs. Prefer REQUEUE for GPU partitions.";
inline constexpr std::string_view kGangGpuWarning =
    "PreemptMode=GANG: a job waiting for its time slice is suspended and keeps its memory on "
    "the node and on its GPUs; jobs sharing GPUs by time-slicing must fit their GPU memory "
    "together.";

}  // namespace rota::conf
