#include "dbd/dbd_daemon.h"

#include <pwd.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "api/auth_settings.h"
#include "api/protobuf_log.h"
#include "api/transport_limits.h"
#include "auth/jwt_credential.h"
#include "common/log.h"
#include "common/strings.h"
#include "conf/config_loader.h"
#include "dbd/assoc_entities.h"
#include "dbd/cluster_entities.h"
#include "dbd/dbd_conf.h"
#include "dbd/pgsql_store.h"
#include "dbd/sqlite_store.h"

namespace rota::dbd {
namespace {

uint32_t UidOf(const std::string& user) {
  if (std::optional<uint64_t> n = ParseUint(user)) return static_cast<uint32_t>(*n);
  passwd* pw = getpwnam(user.c_str());  // Start-up only: no other thread yet.
  return pw != nullptr ? pw->pw_uid : 0;
}

std::string ListenAddress(const conf::ClusterConfig& config) {
  const std::string& host = config.settings.accounting_storage_host;
  if (host.empty() || host == "localhost") return "127.0.0.1";
  return "0.0.0.0";
}

Status MakeDirs(const std::string& path) {
  for (size_t i = 1; i <= path.size(); ++i) {
    if (i < path.size() && path[i] != '/') continue;
    std::string prefix = path.substr(0, i);
    if (mkdir(prefix.c_str(), 0700) != 0 && errno != EEXIST) {
      return Status(StatusCode::kUnavailable,
                    fmt::format("cannot create {}: {}", prefix, std::strerror(errno)));
    }
  }
  return Status::Ok();
}

// The store slurmdbd.conf asks for.
Result<std::unique_ptr<AccountingStore>> OpenStore(const DbdConf& dbd,
                                                   const conf::ClusterConfig& config,
                                                   const DbdOptions& options) {
  if (dbd.storage == StorageKind::kPgsql) {
    PgsqlOptions pg;
    if (!dbd.storage_host.empty()) pg.host = dbd.storage_host;
    if (dbd.storage_port) pg.port = *dbd.storage_port;
    pg.user = dbd.storage_user;
    pg.password = dbd.storage_pass;
    if (!dbd.storage_loc.empty()) pg.database = dbd.storage_loc;
    auto store = PgsqlStore::Open(pg);
    if (!store.ok()) return store.status();
    spdlog::info("accounting database {} on PostgreSQL at {} (schema version {})", pg.database,
                 pg.Endpoint(), (*store)->SchemaVersion());
    return std::unique_ptr<AccountingStore>(std::move(store).value());
  }
  const std::string db_path =
      dbd.storage_loc.empty() ? DatabasePath(config, options) : dbd.storage_loc;
  ROTA_RETURN_IF_ERROR(MakeDirs(db_path.substr(0, db_path.rfind('/'))));
  auto store = SqliteStore::Open(db_path);
  if (!store.ok()) return store.status();
  spdlog::info("accounting database {} (schema version {})", db_path, (*store)->SchemaVersion());
  return std::unique_ptr<AccountingStore>(std::move(store).value());
}

}  // namespace

std::string DatabasePath(const conf::ClusterConfig& config, const DbdOptions& options) {
  std::string dir = options.state_dir.empty() ? config.settings.state_save_location + "/rotadbd"
                                              : options.state_dir;
  return dir + "/accounting.sqlite";
}

Result<std::unique_ptr<DbdDaemon>> DbdDaemon::Start(const DbdOptions& options) {
  std::unique_ptr<DbdDaemon> d(new DbdDaemon());
  conf::Diagnostics diags;
  auto config = conf::LoadClusterConfig(options.slurm_conf_path, diags);
  for (const conf::Diagnostic& finding : diags.all()) spdlog::warn("{}", finding.ToString());
  if (!config.ok()) return config.status();
  d->config_ = *config;

  auto verifier = auth::MakeDaemonVerifier(api::AuthSettingsFor(*d->config_));
  if (!verifier.ok()) return verifier.status();
  d->verifier_ = std::move(verifier).value();

  const bool named = !options.dbd_conf_path.empty();
  const std::string dbd_path =
      named ? options.dbd_conf_path : DbdConfPathBeside(options.slurm_conf_path);
  conf::Diagnostics dbd_diags;
  DbdConf dbd = LoadDbdConf(dbd_path, named, dbd_diags);
  for (const conf::Diagnostic& finding : dbd_diags.all()) {
    if (finding.severity == conf::Severity::kWarning) spdlog::warn("{}", finding.ToString());
  }
  if (dbd_diags.has_errors()) {
    std::string errors;
    for (const conf::Diagnostic& finding : dbd_diags.all()) {
      if (finding.severity == conf::Severity::kError) errors += "\n" + finding.ToString();
    }
    return Status(StatusCode::kInvalidArgument, "bad slurmdbd.conf:" + errors);
  }
  auto store = OpenStore(dbd, *d->config_, options);
  if (!store.ok()) return store.status();
  ROTA_RETURN_IF_ERROR(MigrateUserAssociations(**store));
  ROTA_RETURN_IF_ERROR(EnsureRootAssociation(**store));
  HomeCluster home{d->config_->settings.cluster_name, "", d->config_->settings.slurmctld_port};
  if (!d->config_->settings.controllers.empty()) {
    const conf::ControllerHost& primary = d->config_->settings.controllers.front();
    home.control_host = primary.address.empty() ? primary.name : primary.address;
  }
  // slurmdbd.conf's PrivateData, else slurm.conf's (private_data.h).
  const PrivateData private_data =
      PrivateData::From(dbd.private_data.value_or(d->config_->settings.private_data));
  d->service_ =
      std::make_unique<DbdService>(std::move(store).value(), *d->verifier_,
                                   UidOf(d->config_->settings.slurm_user), home, private_data);

  rpc::ServerOptions server_options;
  server_options.address = ListenAddress(*d->config_);
  server_options.port = d->config_->settings.accounting_storage_port;
  if (dbd.dbd_port && *dbd.dbd_port != server_options.port) {
    spdlog::warn("DbdPort={} in {} differs from AccountingStoragePort={}: listening on {}",
                 *dbd.dbd_port, dbd_path, server_options.port, *dbd.dbd_port);
    server_options.port = *dbd.dbd_port;
  }
  server_options.io_threads = options.io_threads;
  rpc::RaiseDescriptorLimit();
  api::RouteProtobufLogs();  // Malformed requests must not flood the log.
  ROTA_RETURN_IF_ERROR(
      api::ApplyTransportLimits(api::DbdBodyLimits(), d->verifier_.get(), &server_options));
  DbdService* service = d->service_.get();
  auto server = rpc::RpcServer::Start(
      server_options, [service](const rpc::RequestContext& c, std::string body, rpc::Responder r) {
        service->Handle(c, std::move(body), std::move(r));
      });
  if (!server.ok()) return server.status();
  d->server_ = std::move(server).value();
  spdlog::info("rotadbd listening on {}:{} (at most {} connections, {} per peer address)",
               server_options.address, d->server_->port(), d->server_->max_connections(),
               server_options.max_connections_per_peer);
  return d;
}

void DbdDaemon::Stop() {
  if (server_) server_->Stop();
  service_.reset();  // Finishes what was queued.
}

DbdDaemon::~DbdDaemon() { Stop(); }

}  // namespace rota::dbd
