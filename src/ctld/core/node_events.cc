#include "ctld/core/node_events.h"

#include <algorithm>

#include "common/strings.h"
#include "common/tres.h"
#include "ctld/core/accounting_records.h"

namespace rota::ctld {
namespace {

wire::NodeEvent MakeEvent(const conf::ClusterConfig& config, const NodeRuntime& node,
                          int64_t start) {
  wire::NodeEvent e;
  e.set_cluster(config.settings.cluster_name);
  e.set_node(node.config->name);
  e.set_time_start(start);
  e.set_state(NodeEventState(node));
  e.set_reason(node.reason);
  e.set_reason_uid(node.reason_uid);
  e.set_cpus(node.config->cpus);
  e.set_tres(NodeTres(config, *node.config));
  return e;
}

}  // namespace

std::string NodeEventState(const NodeRuntime& node) {
  if (node.admin_down || node.down_not_responding) return "DOWN";
  if (node.drain) return node.running_jobs > node.completing_jobs ? "DRAINING" : "DRAIN";
  return "";
}

std::string NodeTres(const conf::ClusterConfig& config, const conf::NodeConfig& node) {
  TresCounts tres;
  tres.Set("cpu", node.cpus);
  tres.Set("mem", node.real_memory_mb);
  tres.Set("node", 1);
  std::map<std::string, uint64_t> gres;
  for (const GresSpec& g : node.gres) {
    gres["gres/" + g.name] += g.count;
    if (!g.type.empty()) gres["gres/" + g.name + ":" + g.type] += g.count;
  }
  for (const auto& [key, count] : gres) {
    // The same rule as jobs' AllocTRES: gres/... only when tracked.
    if (!TrackedTres(config, key + "=" + std::to_string(count)).empty()) tres.Set(key, count);
  }
  return tres.ToString();
}

void NodeEventTracker::Restore(const conf::ClusterConfig& config, const NodeTable& nodes) {
  open_.clear();
  if (!AccountingEnabled(config)) return;
  for (const NodeRuntime& n : nodes.nodes()) {
    // A node out of service without a reason time has no start to find its
    // event by; the next change opens a new one.
    if (NodeEventState(n).empty() || n.reason_time <= 0) continue;
    open_[n.config->name] = MakeEvent(config, n, n.reason_time);
  }
}

void NodeEventTracker::Observe(const conf::ClusterConfig& config, const NodeRuntime& node,
                               int64_t now, Effects& effects) {
  if (!AccountingEnabled(config)) return;
  const std::string& name = node.config->name;
  const bool out = !NodeEventState(node).empty();
  auto it = open_.find(name);
  if (it != open_.end()) {
    // Still the same event while the node stays out with the same reason
    // time (a reason set anew is a new event).
    if (out && (node.reason_time <= 0 || node.reason_time == it->second.time_start())) {
      wire::NodeEvent now_open = MakeEvent(config, node, it->second.time_start());
      if (now_open.state() != it->second.state() || now_open.reason() != it->second.reason() ||
          now_open.reason_uid() != it->second.reason_uid()) {
        effects.node_events.push_back(now_open);
        it->second = std::move(now_open);
      }
      return;
    }
    wire::NodeEvent closed = std::move(it->second);
    open_.erase(it);
    closed.set_time_end(std::max(now, closed.time_start()));
    effects.node_events.push_back(std::move(closed));
  }
  if (!out) return;
  wire::NodeEvent opened = MakeEvent(config, node, node.reason_time > 0 ? node.reason_time : now);
  effects.node_events.push_back(opened);
  open_[name] = std::move(opened);
}

}  // namespace rota::ctld
