#pragma once

// Where one node daemon listens, keeps its files and finds its controller,
// all derived from slurm.conf for the node named by `rotad -N NAME`.

#include <chrono>
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
  // How often the daemon registers again once registered: well inside
  // SlurmdTimeout, after which the controller counts the node as lost.
  std::chrono::seconds heartbeat_interval{30};
  // SlurmdParameters=config_overrides: the node counts as having what its
  // NodeName line says (GPUs whose device files are missing included).
  bool config_overrides = false;
};

// A third of SlurmdTimeout, at least a second, at most `longest`
// (SlurmdTimeout=0, no timeout: `longest`).
std::chrono::seconds HeartbeatInterval(DurationSecs slurmd_timeout, std::chrono::seconds longest);

// Expands %n (node name) and %h (node hostname) in a SlurmdSpoolDir-style pattern.
std::string ExpandNodePattern(std::string_view pattern, const conf::NodeConfig& node);

// True for a numeric IPv4 or IPv6 address.
bool IsNumericAddress(const std::string& address);
// Where the node daemon listens given its NodeAddr: a numeric address as it
// is; a name that resolves to loopback only, 127.0.0.1; any other name, every
// address (0.0.0.0), as slurmd does.
std::string ListenAddressFor(const std::string& node_addr);

// The settings of node `node_name`: port from Port= on its NodeName line, else
// SlurmdPort; it listens on NodeAddr when that is numeric, else on loopback
// (several virtual nodes of a test cluster share one host that way).
// Errors: kNotFound when slurm.conf has no such node.
Result<NodeSettings> ResolveNodeSettings(const conf::ClusterConfig& config,
                                         const std::string& node_name);

}  // namespace rota::noded
