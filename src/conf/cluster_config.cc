#include "conf/cluster_config.h"

namespace rota::conf {

const NodeConfig* ClusterConfig::FindNode(const std::string& name) const {
  auto it = node_index.find(name);
  return it == node_index.end() ? nullptr : &nodes[it->second];
}

const PartitionConfig* ClusterConfig::FindPartition(const std::string& name) const {
  for (const PartitionConfig& p : partitions) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

const PartitionConfig* ClusterConfig::DefaultPartition() const {
  const PartitionConfig* found = nullptr;
  for (const PartitionConfig& p : partitions) {
    if (p.is_default) found = &p;
  }
  return found;
}

const std::vector<GresDevice>* GresConf::DevicesOf(const std::string& node) const {
  auto it = devices_by_node.find(node);
  return it == devices_by_node.end() ? nullptr : &it->second;
}

std::string GresConf::AutoDetectFor(const std::string& node) const {
  auto it = autodetect_by_node.find(node);
  return it == autodetect_by_node.end() ? autodetect : it->second;
}

}  // namespace rota::conf
