#pragma once

// topology.conf for topology/tree: switches, the nodes under each leaf and the
// switches under each upper switch.

#include <map>
#include <string>
#include <vector>

#include "conf/diagnostics.h"

namespace rota::conf {

struct SwitchConfig {
  std::string name;
  std::vector<std::string> nodes;     // Leaf switches: the nodes under it.
  std::vector<std::string> switches;  // Upper switches: the switches under it.
  std::string link_speed;
  int level = 0;  // 0 for leaves, 1 + max of children above.
  SourceLocation where;
};

struct Topology {
  std::vector<SwitchConfig> switches;     // File order.
  std::map<std::string, size_t> leaf_of;  // Node name -> index of its leaf switch.

  bool empty() const { return switches.empty(); }
};

}  // namespace rota::conf
