#pragma once

// The controller's RPC surface: checks each request's credential, works out
// who the caller is, and turns the request into work for the state loop (or,
// for listings, into a read of the latest published view on a reader thread).

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "auth/credential.h"
#include "ctld/server/reader_pool.h"
#include "ctld/server/rpc_stats.h"
#include "ctld/server/served_config_files.h"
#include "ctld/server/state_loop.h"
#include "rpc/server.h"

namespace rota::ctld {

class ControllerService {
 public:
  // Told of every configuration that `scontrol reconfigure` put in force (on
  // the state loop, right after the core took it).
  using ConfigListener = std::function<void(std::shared_ptr<const conf::ClusterConfig>)>;

  // `slurm_user_uid`: the uid of SlurmUser, privileged like root.
  ControllerService(StateLoop& loop, auth::CredentialVerifier& verifier, uint32_t slurm_user_uid,
                    std::string slurm_conf_path, ConfigListener on_reconfigure = nullptr);

  // Told when sacctmgr reports a change to the accounting policy
  // (kPolicyChanged); calls its argument once the change has been read.
  // REQUIRES: before requests arrive.
  using PolicyChangedListener = std::function<void(std::function<void()> read)>;
  void SetPolicyChangedListener(PolicyChangedListener listener) {
    on_policy_changed_ = std::move(listener);
  }

  // AuthAltTypes=auth/jwt: the key `scontrol token` signs with. Without it
  // kIssueToken is refused. REQUIRES: before requests arrive.
  void SetJwtKey(std::string key) { jwt_key_ = std::move(key); }
  // A token's lifespan when `scontrol token` names none.
  static constexpr int64_t kDefaultTokenLifespanS = 1800;

  // What kFetchConfig serves (null: configless is off, the call is refused).
  // Set at start; ReloadConfiguration replaces it.
  void SetConfigFiles(ServedConfigFiles files);
  ServedConfigFiles config_files() const;

  // The rpc::RequestHandler. Never blocks.
  void Handle(const rpc::RequestContext& context, std::string body, rpc::Responder respond);

  // Reads slurm.conf and the files beside it again and puts them in force,
  // as `scontrol reconfigure` does; `done` is told how it went (an error
  // keeps the running configuration). Never blocks on the state loop.
  void ReloadConfiguration(std::function<void(const Status&)> done);

 private:
  Caller ResolveCaller(const auth::Identity& id);
  void Reconfigure(const Caller& caller, rpc::Responder respond);
  // Job step requests (kCreateStep, kStepEnded, kListSteps).
  void HandleStep(uint16_t method, const Caller& caller, const std::string& body,
                  rpc::Responder respond);
  // sdiag (diag_service.cc): the statistics, or their reset.
  void Diag(const Caller& caller, const std::string& body, rpc::Responder respond);
  // scontrol token (token_service.cc).
  void IssueToken(const Caller& caller, const std::string& body, rpc::Responder respond);
  // scontrol's reservation requests (reservation_service.cc).
  void HandleReservation(uint16_t method, const Caller& caller, const std::string& body,
                         rpc::Responder respond);

  StateLoop& loop_;
  auth::CredentialVerifier& verifier_;
  uint32_t slurm_user_uid_;
  std::string slurm_conf_path_;
  ConfigListener on_reconfigure_;
  PolicyChangedListener on_policy_changed_;  // May be empty
  std::optional<std::string> jwt_key_;
  ReaderPool readers_{2};
  RpcStats rpc_stats_;

  mutable std::mutex files_mu_;
  ServedConfigFiles config_files_;  // Guarded by files_mu_.

  std::mutex names_mu_;
  std::unordered_map<uint32_t, std::string> user_names_;   // Guarded by names_mu_.
  std::unordered_map<uint32_t, std::string> group_names_;  // Guarded by names_mu_.
};

}  // namespace rota::ctld
