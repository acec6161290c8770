#pragma once

// `scontrol show job|node|partition` in Slurm's key=value layout: a first
// line, then indented lines of fields; with -o everything on one line.

#include <string>
#include <vector>

#include "conf/cluster_config.h"
#include "rota.pb.h"

namespace rota::cli {

// `details` (scontrol -d) adds JOB_GRES= and, per node, the exact allocation:
// "Nodes=gpu01 CPU_IDs=0-63 Mem=102400 GRES=gpu:a100:4(IDX:0-3)".
std::string FormatJobDetails(const wire::JobRecord& job, int64_t now, bool one_liner,
                             bool details = false);
std::string FormatNodeDetails(const wire::NodeInfo& node, bool one_liner);
std::string FormatPartitionDetails(const conf::PartitionConfig& partition,
                                   const conf::ClusterConfig& config, bool one_liner);

}  // namespace rota::cli
