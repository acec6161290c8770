#include "noded/node_settings.h"

#include <arpa/inet.h>
#include <fmt/format.h>

#include <algorithm>

#include "common/strings.h"

namespace rota::noded {

std::string ExpandNodePattern(std::string_view pattern, const conf::NodeConfig& node) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '%' && i + 1 < pattern.size()) {
      char c = pattern[i + 1];
      if (c == 'n' || c == 'h' || c == '%') {
        out += c == 'n' ? node.name : c == 'h' ? node.hostname : "%";
        ++i;
        continue;
      }
    }
    out += pattern[i];
  }
  return out;
}

std::chrono::seconds HeartbeatInterval(DurationSecs slurmd_timeout, std::chrono::seconds longest) {
  if (slurmd_timeout <= 0) return longest;
  return std::clamp(std::chrono::seconds(slurmd_timeout / 3), std::chrono::seconds(1), longest);
}

bool IsNumericAddress(const std::string& address) {
  unsigned char buf[sizeof(in6_addr)];
  return inet_pton(AF_INET, address.c_str(), buf) == 1 ||
         inet_pton(AF_INET6, address.c_str(), buf) == 1;
}

Result<NodeSettings> ResolveNodeSettings(const conf::ClusterConfig& config,
                                         const std::string& node_name) {
  const conf::NodeConfig* node = config.FindNode(node_name);
  if (node == nullptr) {
    return NotFound(
        fmt::format("node '{}' has no NodeName line in {}", node_name, config.slurm_conf_path));
  }
  NodeSettings s;
  s.node_name = node_name;
  s.port = node->port != 0 ? node->port : config.settings.slurmd_port;
  s.listen_address = IsNumericAddress(node->address) ? node->address : "127.0.0.1";
  s.spool_dir = ExpandNodePattern(config.settings.slurmd_spool_dir, *node);
  s.heartbeat_interval = HeartbeatInterval(config.settings.slurmd_timeout, s.heartbeat_interval);
  for (const std::string& p : config.settings.slurmd_parameters) {
    s.config_overrides |= EqualsIgnoreCase(Trim(p), "config_overrides");
  }
  for (const conf::ControllerHost& host : config.settings.controllers) {
    s.controllers.push_back(
        {host.address.empty() ? host.name : host.address, config.settings.slurmctld_port});
  }
  return s;
}

}  // namespace rota::noded
