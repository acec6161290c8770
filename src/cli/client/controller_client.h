#pragma once

// How every command talks to rotactld: read slurm.conf (SLURM_CONF), make a
// credential for this process, send one request, decode the answer. Tries the
// backup controller when the primary does not answer.

#include <google/protobuf/message_lite.h>

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "auth/credential.h"
#include "common/status.h"
#include "conf/cluster_config.h"
#include "conf/diagnostics.h"
#include "rpc/client.h"

namespace rota::cli {

class ControllerClient {
 public:
  // Loads the configuration at `slurm_conf_path` (errors name file and line).
  static Result<std::unique_ptr<ControllerClient>> Create(const std::string& slurm_conf_path);
  // With a configuration already loaded and credentials from `issuer`
  // (rotarestd: the REST caller's token).
  static Result<std::unique_ptr<ControllerClient>> Create(
      std::shared_ptr<const conf::ClusterConfig> config,
      std::unique_ptr<auth::CredentialIssuer> issuer);

  // Sends `request` as `method` and parses the answer into `response`. An error
  // answer from the controller comes back as its Status (message for the user).
  Status Call(uint16_t method, const google::protobuf::MessageLite& request,
              google::protobuf::MessageLite* response);
  // The same, answering the serialized response, for callers that read it
  // without building the message (JobListing). With several SlurmctldHost
  // lines, a controller in standby sends it to the next, and when none is in
  // control the call is tried again for up to SlurmctldTimeout + 5 s.
  Result<std::string> CallForBody(uint16_t method, const google::protobuf::MessageLite& request);
  // One call to the `index`th SlurmctldHost alone, on a connection of its own
  // (scontrol ping and takeover), answering the serialized response.
  Result<std::string> CallAt(size_t index, uint16_t method,
                             const google::protobuf::MessageLite& request);

  const conf::ClusterConfig& config() const { return *config_; }

 private:
  ControllerClient() = default;
  Status Connect();

  std::shared_ptr<const conf::ClusterConfig> config_;
  std::unique_ptr<auth::CredentialIssuer> issuer_;
  rpc::RpcClient rpc_;
  size_t connected_ = 0;  // Which SlurmctldHost rpc_ is connected to
  size_t next_ = 0;       // Where the next connection starts looking
  std::chrono::milliseconds timeout_{60'000};
};

// What a command says when slurm.conf cannot be loaded: the first error with
// its file and line (not the "error: " the configuration's report starts
// with: the command adds its own), and how many more there are.
std::string ConfigErrorMessage(const conf::Diagnostics& diags, const Status& status);

// For a command that makes one call: reads slurm.conf, calls, and answers
// true with `response` filled; otherwise prints "PROGRAM: error: MESSAGE" on
// stderr (the configuration's error or the controller's) and answers false.
bool CallControllerOnce(std::string_view program, uint16_t method,
                        const google::protobuf::MessageLite& request,
                        google::protobuf::MessageLite* response);

}  // namespace rota::cli
