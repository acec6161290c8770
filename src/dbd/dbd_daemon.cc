#include "dbd/dbd_daemon.h"

#include <pwd.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "api/auth_settings.h"
#include "common/log.h"
#include "common/strings.h"
#include "conf/config_loader.h"
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

  auto verifier = auth::MakeVerifier(api::AuthSettingsFor(*d->config_));
  if (!verifier.ok()) return verifier.status();
  d->verifier_ = std::move(verifier).value();

  const std::string db_path = DatabasePath(*d->config_, options);
  ROTA_RETURN_IF_ERROR(MakeDirs(db_path.substr(0, db_path.rfind('/'))));
  auto store = SqliteStore::Open(db_path);
  if (!store.ok()) return store.status();
  spdlog::info("accounting database {} (schema version {})", db_path, (*store)->SchemaVersion());
  d->service_ = std::make_unique<DbdService>(std::move(store).value(), *d->verifier_,
                                             UidOf(d->config_->settings.slurm_user));

  rpc::ServerOptions server_options;
  server_options.address = ListenAddress(*d->config_);
  server_options.port = d->config_->settings.accounting_storage_port;
  server_options.io_threads = options.io_threads;
  DbdService* service = d->service_.get();
  auto server = rpc::RpcServer::Start(
      server_options, [service](const rpc::RequestContext& c, std::string body, rpc::Responder r) {
        service->Handle(c, std::move(body), std::move(r));
      });
  if (!server.ok()) return server.status();
  d->server_ = std::move(server).value();
  spdlog::info("rotadbd listening on {}:{}", server_options.address, d->server_->port());
  return d;
}

void DbdDaemon::Stop() {
  if (server_) server_->Stop();
  service_.reset();  // Finishes what was queued.
}

DbdDaemon::~DbdDaemon() { Stop(); }

}  // namespace rota::dbd
