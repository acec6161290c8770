#pragma once

// How sacct (and later sacctmgr) talk to rotadbd: read slurm.conf, check that
// accounting is on, make a credential for this process, send one request to
// AccountingStorageHost:AccountingStoragePort and decode the answer.

#include <google/protobuf/message_lite.h>

#include <chrono>
#include <memory>
#include <string>

#include "auth/credential.h"
#include "common/status.h"
#include "conf/cluster_config.h"
#include "rpc/client.h"

namespace rota::cli {

class AccountingClient {
 public:
  // Errors: the configuration's (file and line), or kFailedPrecondition with
  // Slurm's words when AccountingStorageType is not accounting_storage/slurmdbd.
  static Result<std::unique_ptr<AccountingClient>> Create(const std::string& slurm_conf_path);
  // With a configuration already loaded and credentials from `issuer`
  // (rotarestd: the REST caller's token).
  static Result<std::unique_ptr<AccountingClient>> Create(
      std::shared_ptr<const conf::ClusterConfig> config,
      std::unique_ptr<auth::CredentialIssuer> issuer);

  Status Call(uint16_t method, const google::protobuf::MessageLite& request,
              google::protobuf::MessageLite* response);
  // The answer's serialized body.
  Result<std::string> CallForBody(uint16_t method, const google::protobuf::MessageLite& request);

  const conf::ClusterConfig& config() const { return *config_; }

 private:
  AccountingClient() = default;

  std::shared_ptr<const conf::ClusterConfig> config_;
  std::unique_ptr<auth::CredentialIssuer> issuer_;
  rpc::RpcClient rpc_;
  std::chrono::milliseconds timeout_{60'000};
};

}  // namespace rota::cli
