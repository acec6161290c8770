#include "sched/first_fit.h"

#include <algorithm>

namespace rota::sched {

uint32_t NodeResources::gpus(const std::string& type) const {
  if (!type.empty()) {
    auto it = gpus_by_type.find(type);
    return it == gpus_by_type.end() ? 0 : it->second;
  }
  uint32_t total = 0;
  for (const auto& [t, n] : gpus_by_type) total += n;
  return total;
}

bool NodeFits(const NodeResources& node, const ResourceRequest& req) {
  if (req.excluded_nodes.count(node.name) > 0) return false;
  if (req.exclusive && !node.idle) return false;
  if (node.cpus < req.cpus_per_node) return false;
  if (!req.whole_node_memory && node.mem_mb < req.mem_per_node_mb) return false;
  if (req.whole_node_memory && !node.idle && node.mem_mb == 0) return false;
  if (req.gpus_per_node > 0 && node.gpus(req.gpu_type) < req.gpus_per_node) return false;
  for (const std::string& f : req.required_features) {
    if (node.features.count(f) == 0) return false;
  }
  for (const std::vector<std::string>& group : req.any_of_features) {
    bool any = std::any_of(group.begin(), group.end(),
                           [&](const std::string& f) { return node.features.count(f) > 0; });
    if (!any) return false;
  }
  return true;
}

std::optional<Placement> FirstFit(const std::vector<NodeResources>& candidates,
                                  const ResourceRequest& req) {
  if (req.required_nodes.size() > req.nodes) return std::nullopt;
  Placement p;
  // Nodes named with -w come first and must all fit.
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (req.required_nodes.count(candidates[i].name) == 0) continue;
    if (!NodeFits(candidates[i], req)) return std::nullopt;
    p.node_indices.push_back(i);
  }
  if (p.node_indices.size() < req.required_nodes.size()) return std::nullopt;
  for (size_t i = 0; i < candidates.size() && p.node_indices.size() < req.nodes; ++i) {
    if (req.required_nodes.count(candidates[i].name) > 0) continue;
    if (NodeFits(candidates[i], req)) p.node_indices.push_back(i);
  }
  if (p.node_indices.size() < req.nodes) return std::nullopt;
  return p;
}

}  // namespace rota::sched
