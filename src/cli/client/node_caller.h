#pragma once

// Requests from a command straight to a node daemon (srun's task launches,
// scancel's step signals): the node's NodeAddr and Port from slurm.conf, a
// credential for this process. Thread-safe: one connection per call.

#include <google/protobuf/message_lite.h>

#include <chrono>
#include <mutex>
#include <string>

#include "auth/credential.h"
#include "common/status.h"
#include "conf/cluster_config.h"

namespace rota::cli {

class NodeCaller {
 public:
  // REQUIRES: `config` and `issuer` outlive this object.
  NodeCaller(const conf::ClusterConfig& config, auth::CredentialIssuer& issuer)
      : config_(config), issuer_(issuer) {}

  // Sends `request` as `method` to `node`'s rotad; its answer's status.
  Status Call(const std::string& node, uint16_t method,
              const google::protobuf::MessageLite& request, std::chrono::milliseconds timeout);
  // The same, with the answer parsed into `response` (sstat's kStepStats).
  Status Call(const std::string& node, uint16_t method,
              const google::protobuf::MessageLite& request, google::protobuf::MessageLite* response,
              std::chrono::milliseconds timeout);

 private:
  const conf::ClusterConfig& config_;
  auth::CredentialIssuer& issuer_;
  std::mutex mu_;  // Serialises Issue (a replay cache may sit behind it).
};

}  // namespace rota::cli
