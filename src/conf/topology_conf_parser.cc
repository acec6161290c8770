#include "conf/topology_conf_parser.h"

#include <fmt/format.h>

#include <functional>

#include "common/hostlist.h"
#include "common/strings.h"

namespace rota::conf {
namespace {

std::vector<std::string> ExpandOrReport(const std::string& key, const std::string& value,
                                        const SourceLocation& where, Diagnostics& diags) {
  Result<std::vector<std::string>> names = ExpandHostlist(value);
  if (!names.ok()) {
    diags.Error(where, fmt::format("{}={}: {}", key, value, names.status().message()));
    return {};
  }
  return std::move(names).value();
}

// Assigns levels bottom-up; reports a cycle once, at the switch that closes it.
class LevelAssigner {
 public:
  LevelAssigner(Topology& topo, const std::map<std::string, size_t>& index, Diagnostics& diags)
      : topo_(topo), index_(index), diags_(diags), mark_(topo.switches.size(), kUnvisited) {}

  void Run() {
    for (size_t i = 0; i < topo_.switches.size(); ++i) Visit(i);
  }

 private:
  enum Mark { kUnvisited, kVisiting, kDone };

  int Visit(size_t i) {
    SwitchConfig& s = topo_.switches[i];
    if (mark_[i] == kDone) return s.level;
    if (mark_[i] == kVisiting) {
      diags_.Error(s.where, fmt::format("switch {} is its own descendant (a cycle)", s.name));
      return 0;
    }
    mark_[i] = kVisiting;
    int level = 0;
    for (const std::string& child : s.switches) {
      auto it = index_.find(child);
      if (it != index_.end()) level = std::max(level, Visit(it->second) + 1);
    }
    s.level = level;
    mark_[i] = kDone;
    return level;
  }

  Topology& topo_;
  const std::map<std::string, size_t>& index_;
  Diagnostics& diags_;
  std::vector<Mark> mark_;
};

}  // namespace

Topology ParseTopologyConf(const std::vector<ConfigLine>& lines, const ClusterConfig& config,
                           const std::string& topology_path, Diagnostics& diags) {
  Topology topo;
  std::map<std::string, size_t> index;
  for (const ConfigLine& line : lines) {
    if (!EqualsIgnoreCase(line.pairs.front().key, "SwitchName")) {
      diags.Error(line.where,
                  fmt::format("expected SwitchName=, found {}", line.pairs.front().key));
      continue;
    }
    SwitchConfig s;
    s.name = line.pairs.front().value;
    s.where = line.where;
    for (size_t i = 1; i < line.pairs.size(); ++i) {
      const KeyValue& kv = line.pairs[i];
      if (EqualsIgnoreCase(kv.key, "Nodes")) {
        s.nodes = ExpandOrReport(kv.key, kv.value, line.where, diags);
      } else if (EqualsIgnoreCase(kv.key, "Switches")) {
        s.switches = ExpandOrReport(kv.key, kv.value, line.where, diags);
      } else if (EqualsIgnoreCase(kv.key, "LinkSpeed")) {
        s.link_speed = kv.value;
      } else {
        diags.Warning(line.where, fmt::format("unknown key {} (ignored)", kv.key));
      }
    }
    if (auto it = index.find(s.name); it != index.end()) {
      diags.Error(line.where, fmt::format("switch {} is already defined at line {}", s.name,
                                          topo.switches[it->second].where.line));
      continue;
    }
    index[s.name] = topo.switches.size();
    topo.switches.push_back(std::move(s));
  }

  for (size_t i = 0; i < topo.switches.size(); ++i) {
    const SwitchConfig& s = topo.switches[i];
    std::vector<std::string> unknown_nodes;
    for (const std::string& node : s.nodes) {
      if (config.node_index.count(node) == 0) {
        unknown_nodes.push_back(node);
        continue;
      }
      auto [it, inserted] = topo.leaf_of.emplace(node, i);
      if (!inserted) {
        diags.Error(s.where, fmt::format("node {} is under two leaf switches ({} and {})", node,
                                         topo.switches[it->second].name, s.name));
      }
    }
    if (!unknown_nodes.empty()) {
      diags.Error(s.where, fmt::format("switch {} names {} that no NodeName line defines", s.name,
                                       CompressHostlist(unknown_nodes)));
    }
    for (const std::string& child : s.switches) {
      if (index.count(child) == 0) {
        diags.Error(s.where,
                    fmt::format("switch {} names switch {}, which is not defined", s.name, child));
      }
    }
  }
  LevelAssigner(topo, index, diags).Run();

  std::vector<std::string> orphans;
  for (const NodeConfig& n : config.nodes) {
    if (topo.leaf_of.count(n.name) == 0) orphans.push_back(n.name);
  }
  if (!orphans.empty()) {
    diags.Error({topology_path, 0},
                fmt::format("{} under no leaf switch (topology/tree needs "
                            "every node in the tree)",
                            CompressHostlist(orphans) + (orphans.size() == 1 ? " is" : " are")));
  }
  return topo;
}

}  // namespace rota::conf
