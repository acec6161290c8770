#pragma once

// rotadbd put together: configuration (slurm.conf, and slurmdbd.conf for the
// storage), credentials, the store (SQLite in its state directory, or
// PostgreSQL) and the RPC service on AccountingStoragePort.

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
  // slurmdbd.conf; empty: the one beside slurm_conf_path, if there is one.
  std::string dbd_conf_path;
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

// The SQLite database file rotadbd uses for these options (StorageLoc, when
// slurmdbd.conf sets it, comes first).
std::string DatabasePath(const conf::ClusterConfig& config, const DbdOptions& options);

}  // namespace rota::dbd
