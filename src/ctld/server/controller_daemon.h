#pragma once

// rotactld put together: configuration, credentials, durable state, the state
// loop and the RPC service.

#include <memory>
#include <mutex>
#include <string>

#include "auth/credential.h"
#include "conf/cluster_config.h"
#include "ctld/server/accounting_outbox.h"
#include "ctld/server/controller_service.h"
#include "ctld/server/policy_fetcher.h"
#include "ctld/server/registration_nudge.h"
#include "ctld/server/runtime_history.h"
#include "ctld/server/slurmctld_scripts.h"
#include "ctld/server/state_loop.h"
#include "rpc/server.h"

namespace rota::ctld {

struct DaemonOptions {
  std::string slurm_conf_path;
  int io_threads = 2;
  // Which SlurmctldHost line this controller is (0: the primary): it listens
  // at that line's address.
  size_t controller_index = 0;
};

// SlurmUser's uid (a name or a number); 0 when unknown.
uint32_t SlurmUserUid(const std::string& user);

// Where the `index`th SlurmctldHost listens: its address, 127.0.0.1 for
// localhost, else every address.
std::string ControllerListenAddress(const conf::ClusterConfig& config, size_t index);

class ControllerDaemon {
 public:
  // Loads state, starts the loop and listens. Errors explain what to fix.
  static Result<std::unique_ptr<ControllerDaemon>> Start(const DaemonOptions& options);
  ~ControllerDaemon();

  uint16_t port() const { return server_->port(); }
  void Stop();
  // SIGHUP (systemctl reload): as `scontrol reconfigure`. Waits for it.
  Status Reload();
  // Asks every node of `config` to register now (after a reconfigure, so
  // that configless nodes fetch the new files at once).
  void AskNodesToRegister(std::shared_ptr<const conf::ClusterConfig> config);

 private:
  ControllerDaemon() = default;

  std::shared_ptr<const conf::ClusterConfig> config_;
  std::unique_ptr<auth::CredentialVerifier> verifier_;
  std::unique_ptr<EffectSink> sink_;
  SlurmctldScripts* scripts_ = nullptr;  // Within sink_
  PosixFileOps outbox_files_;
  std::unique_ptr<AccountingOutbox> outbox_;  // Accounting on only; outlives loop_.
  std::unique_ptr<StateLoop> loop_;
  std::unique_ptr<PolicyFetcher> policy_fetcher_;           // AccountingStorageEnforce only
  std::unique_ptr<RuntimeHistoryFetcher> runtime_history_;  // rota_predict_runtime only
  std::unique_ptr<ControllerService> service_;
  std::unique_ptr<rpc::RpcServer> server_;
  auth::AuthSettings auth_settings_;
  std::mutex nudge_mu_;
  bool stopped_ = false;                      // Guarded by nudge_mu_.
  std::unique_ptr<RegistrationNudge> nudge_;  // At start and reconfigure. Guarded by nudge_mu_.
};

}  // namespace rota::ctld
