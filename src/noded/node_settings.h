#pragma once

// Where one node daemon listens, keeps its files and finds its controller,
// all derived from slurm.conf for the node named by `rotad -N NAME`.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "conf/cluster_config.h"

namespace rota::noded {

struct ControllerAddress {
  std::string host;  // Address to connect to (SlurmctldHost's address, else its name).
  uint16_t port = 0;
};

struct NodeSettings {
  std::string node_name;
  std::string listen_address;  // Numeric; see ResolveNodeSettings.
  uint16_t port = 0;
  std::string spool_dir;                       // SlurmdSpoolDir, %n and %h expanded.
  std::vector<ControllerAddress> controllers;  // Primary first.
};

// Expands %n (node name) and %h (node hostname) in a SlurmdSpoolDir-style pattern.
std::string ExpandNodePattern(std::string_view pattern, const conf::NodeConfig& node);

// True for a numeric IPv4 or IPv6 address.
bool IsNumericAddress(const std::string& address);

// The settings of node `node_name`: port from Port= on its NodeName line, else
// SlurmdPort; it listens on NodeAddr when that is numeric, else on loopback
// (several virtual nodes of a test cluster share one host that way).
// Errors: kNotFound when slurm.conf has no such node.
Result<NodeSettings> ResolveNodeSettings(const conf::ClusterConfig& config,
                                         const std::string& node_name);

}  // namespace rota::noded
