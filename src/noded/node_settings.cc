#include "noded/node_settings.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netdb.h>
#include <netinet/in.h>

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

std::string ListenAddressFor(const std::string& node_addr) {
  if (IsNumericAddress(node_addr)) return node_addr;
  // A name: the node is reached at whatever it resolves to. Only a name that
  // resolves to loopback alone (several node daemons on one test host) keeps
  // the daemon there; otherwise it listens on every address, as slurmd does,
  // which inside a host of its own (a network namespace) is that host's.
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(node_addr.c_str(), nullptr, &hints, &found) != 0 || found == nullptr) {
    return "0.0.0.0";
  }
  bool loopback_only = true;
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    if (a->ai_family == AF_INET) {
      const auto* in = reinterpret_cast<const sockaddr_in*>(a->ai_addr);
      loopback_only &= (ntohl(in->sin_addr.s_addr) >> 24) == 127;
    } else if (a->ai_family == AF_INET6) {
      const auto* in6 = reinterpret_cast<const sockaddr_in6*>(a->ai_addr);
      loopback_only &= IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr);
    }
  }
  freeaddrinfo(found);
  return loopback_only ? "127.0.0.1" : "0.0.0.0";
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
  s.listen_address = ListenAddressFor(node->address);
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
