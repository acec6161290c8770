#include "ctld/ha/standby_server.h"

#include <spdlog/spdlog.h>

#include "api/auth_settings.h"
#include "api/controller_standby.h"
#include "api/methods.h"
#include "api/transport_limits.h"
#include "auth/jwt_credential.h"
#include "ctld/server/controller_daemon.h"
#include "rota.pb.h"

namespace rota::ctld {

Result<std::unique_ptr<StandbyServer>> StandbyServer::Start(const conf::ClusterConfig& config,
                                                            size_t index, Hooks hooks) {
  std::unique_ptr<StandbyServer> s(new StandbyServer());
  s->hooks_ = std::move(hooks);
  s->slurm_user_uid_ = SlurmUserUid(config.settings.slurm_user);
  auto verifier = auth::MakeDaemonVerifier(api::AuthSettingsFor(config));
  if (!verifier.ok()) return verifier.status();
  s->verifier_ = std::move(verifier).value();
  rpc::ServerOptions options;
  options.address = ControllerListenAddress(config, index);
  options.port = config.settings.slurmctld_port;
  options.io_threads = 1;
  ROTA_RETURN_IF_ERROR(
      api::ApplyTransportLimits(api::ControllerBodyLimits(), s->verifier_.get(), &options));
  StandbyServer* self = s.get();
  auto server =
      rpc::RpcServer::Start(options, [self](const rpc::RequestContext& context, std::string body,
                                            rpc::Responder r) { self->Handle(context, body, r); });
  if (!server.ok()) return server.status();
  s->server_ = std::move(server).value();
  return s;
}

void StandbyServer::Stop() {
  if (server_) server_->Stop();
  server_.reset();
}

void StandbyServer::Handle(const rpc::RequestContext& context, const std::string& body,
                           const rpc::Responder& respond) {
  Result<auth::Identity> id = verifier_->Verify(
      context.credential, auth::RpcBindingBytes(context.method, body), auth::SystemUnixNow());
  if (!id.ok()) {
    respond.Fail(id.status());
    return;
  }
  if (context.method == api::kPing) {
    respond(0, wire::PingResponse().SerializeAsString());
  } else if (context.method == api::kTakeover) {
    if (id->uid != 0 && id->uid != slurm_user_uid_) {
      respond.Fail(Status(StatusCode::kPermissionDenied, "Access/permission denied"));
      return;
    }
    spdlog::info("scontrol takeover from uid {}: taking control", id->uid);
    hooks_.takeover();
    respond(0, wire::Empty().SerializeAsString());
  } else {
    respond.Fail(api::StandbyAnswer(hooks_.in_control()));
  }
}

}  // namespace rota::ctld
