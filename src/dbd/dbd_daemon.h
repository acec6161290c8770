#pragma once

// rotadbd put together: configuration, credentials, the SQLite store in its
// state directory and the RPC service on AccountingStoragePort.

#include <memory>
#include <string>

#include "auth/credential.h"
#include "conf/cluster_config.h"
#include "dbd/dbd_service.h"
#include "rpc/server.h"

namespace rota::dbd {

struct DbdOptions {
  std::string slurm_conf_path;
  // Where the database lives; empty: <StateSaveLocation>/rotadbd.
  std::string state_dir;
  int io_threads = 2;
};

class DbdDaemon {
 public:
  static Result<std::unique_ptr<DbdDaemon>> Start(const DbdOptions& options);
  ~DbdDaemon();

  uint16_t port() const { return server_->port(); }
  void Stop();

 private:
  DbdDaemon() = default;

  std::shared_ptr<const conf::ClusterConfig> config_;
  std::unique_ptr<auth::CredentialVerifier> verifier_;
  std::unique_ptr<DbdService> service_;
  std::unique_ptr<rpc::RpcServer> server_;
};

// The database file rotadbd uses for these options.
std::string DatabasePath(const conf::ClusterConfig& config, const DbdOptions& options);

}  // namespace rota::dbd
