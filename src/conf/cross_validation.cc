#include "conf/cross_validation.h"

#include <fmt/format.h>

#include <functional>

#include "common/hostlist.h"
#include "common/strings.h"

namespace rota::conf {
namespace {

// Gathers the nodes a finding applies to, so that sixteen identical nodes give
// one line ("gpu[01-16] declare ...") rather than sixteen.
class FindingsByNodes {
 public:
  void Add(const SourceLocation& where, const std::string& what, const std::string& node) {
    std::string key = fmt::format("{}\n{}\n{}", where.file, where.line, what);
    auto [it, inserted] = index_.emplace(key, groups_.size());
    if (inserted) groups_.push_back({where, what, {}});
    std::vector<std::string>& nodes = groups_[it->second].nodes;
    // A node with several devices on one line is one finding, not several.
    if (nodes.empty() || nodes.back() != node) nodes.push_back(node);
  }

  // Calls `report(where, nodes_text, node_count, what)` once per group, in first-seen order.
  void ReportEach(const std::function<void(const SourceLocation&, const std::string&, size_t,
                                           const std::string&)>& report) const {
    for (const Group& g : groups_) {
      report(g.where, CompressHostlist(g.nodes, HostlistOrder::kAsGiven), g.nodes.size(), g.what);
    }
  }

 private:
  struct Group {
    SourceLocation where;
    std::string what;
    std::vector<std::string> nodes;
  };
  std::map<std::string, size_t> index_;
  std::vector<Group> groups_;
};

bool InGresTypes(const SlurmConf& s, const std::string& name) {
  for (const std::string& t : s.gres_types) {
    if (EqualsIgnoreCase(t, name)) return true;
  }
  return false;
}

void CheckGresTypes(const ClusterConfig& config, Diagnostics& diags) {
  FindingsByNodes findings;
  for (const NodeConfig& n : config.nodes) {
    for (const GresSpec& g : n.gres) {
      if (!InGresTypes(config.settings, g.name)) {
        findings.Add(
            n.where,
            fmt::format("Gres={} names {}, which is not listed in GresTypes", g.ToString(), g.name),
            n.name);
      }
    }
  }
  findings.ReportEach(
      [&](const SourceLocation& where, const std::string& nodes, size_t, const std::string& what) {
        diags.Error(where, fmt::format("NodeName={}: {}", nodes, what));
      });
}

// slurm.conf's Gres= counts against the devices gres.conf describes.
void CheckGresCounts(const ClusterConfig& config, Diagnostics& diags) {
  FindingsByNodes findings;
  for (const NodeConfig& n : config.nodes) {
    const std::vector<GresDevice>* devices = config.gres.DevicesOf(n.name);
    if (devices == nullptr) continue;  // Nothing described: AutoDetect or count-only.
    for (const GresSpec& g : n.gres) {
      const GresDevice* first = nullptr;
      uint64_t described = 0;
      for (const GresDevice& d : *devices) {
        if (!EqualsIgnoreCase(d.name, g.name)) continue;
        if (first == nullptr) first = &d;
        if (g.type.empty() || EqualsIgnoreCase(d.type, g.type)) described += d.count;
      }
      if (first == nullptr || described == g.count) continue;
      findings.Add(
          first->where,
          fmt::format("Gres={} in slurm.conf (line {}) but gres.conf describes {} {}", g.ToString(),
                      n.where.line, described, described == 1 ? "device" : "devices"),
          n.name);
    }
  }
  findings.ReportEach([&](const SourceLocation& where, const std::string& nodes, size_t count,
                          const std::string& what) {
    diags.Error(where, fmt::format("{} {} {}", nodes, count == 1 ? "declares" : "declare", what));
  });
}

// Cores= must name cores the node has (core indices 0 .. Sockets*CoresPerSocket-1).
void CheckGresCores(const ClusterConfig& config, Diagnostics& diags) {
  FindingsByNodes findings;
  for (const NodeConfig& n : config.nodes) {
    const std::vector<GresDevice>* devices = config.gres.DevicesOf(n.name);
    if (devices == nullptr) continue;
    for (const GresDevice& d : *devices) {
      if (d.cores.empty() || d.cores.back() < n.cores()) continue;
      findings.Add(d.where,
                   fmt::format("Cores= names core {} but {{}} {{}} cores 0-{}", d.cores.back(),
                               n.cores() - 1),
                   n.name);
    }
  }
  findings.ReportEach([&](const SourceLocation& where, const std::string& nodes, size_t count,
                          const std::string& what) {
    diags.Error(where, fmt::format(fmt::runtime(what), nodes, count == 1 ? "has" : "have"));
  });
}

void CheckRequiredSettings(const ClusterConfig& config, Diagnostics& diags) {
  SourceLocation file{config.slurm_conf_path, 0};
  if (config.settings.cluster_name.empty()) diags.Error(file, "ClusterName is not set");
  if (config.settings.controllers.empty()) diags.Error(file, "SlurmctldHost is not set");
  if (config.settings.controllers.size() > 2) {
    diags.Warning(file, "more than two SlurmctldHost entries; Rota uses the first two");
  }
  if (config.nodes.empty()) diags.Error(file, "no NodeName line defines a node");
}

}  // namespace

void CrossValidate(const ClusterConfig& config, Diagnostics& diags) {
  CheckRequiredSettings(config, diags);
  CheckGresTypes(config, diags);
  CheckGresCounts(config, diags);
  CheckGresCores(config, diags);
}

}  // namespace rota::conf
