#pragma once

// One signed request from the controller to a node daemon: connect to the
// node's address and port (its Port=, else SlurmdPort), sign, send, and sign
// once more if the node asks (a restart or a clock step; auth::SendSigned).
// Used by the node messenger and the registration nudge.

#include <chrono>
#include <cstdint>
#include <string>

#include "auth/credential.h"
#include "common/status.h"
#include "conf/cluster_config.h"

namespace rota::ctld {

struct NodeCallTimeouts {
  std::chrono::milliseconds connect;
  std::chrono::milliseconds answer;
};

// The port `node` listens on.
uint16_t NodePort(const conf::ClusterConfig& config, const conf::NodeConfig& node);

// The node's answer, or why none came.
Status CallNode(const conf::ClusterConfig& config, const conf::NodeConfig& node,
                auth::CredentialIssuer& issuer, uint16_t method, const std::string& body,
                NodeCallTimeouts timeouts);

}  // namespace rota::ctld
