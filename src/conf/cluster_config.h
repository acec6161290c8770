#pragma once

// The whole validated configuration of a cluster, read from slurm.conf and the
// gres.conf, cgroup.conf and topology.conf beside it. Immutable once built:
// share it as std::shared_ptr<const ClusterConfig>; reconfiguration builds a
// new one.

#include <map>
#include <string>
#include <vector>

#include "conf/cgroup_conf.h"
#include "conf/gres_conf.h"
#include "conf/slurm_conf.h"
#include "conf/topology_conf.h"

namespace rota::conf {

struct ClusterConfig {
  std::string slurm_conf_path;
  SlurmConf settings;
  std::vector<NodeConfig> nodes;  // Configuration order.
  std::vector<PartitionConfig> partitions;
  GresConf gres;
  CgroupConf cgroup;
  Topology topology;

  const NodeConfig* FindNode(const std::string& name) const;
  const PartitionConfig* FindPartition(const std::string& name) const;
  // The partition marked Default=YES (the last one, as Slurm), or nullptr.
  const PartitionConfig* DefaultPartition() const;

  // Name -> index in `nodes`; filled by the loader.
  std::map<std::string, size_t> node_index;
};

}  // namespace rota::conf
