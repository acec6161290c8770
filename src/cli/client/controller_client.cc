#include "cli/client/controller_client.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <thread>

#include "api/auth_settings.h"
#include "api/controller_standby.h"
#include "api/signed_call.h"
#include "cli/client/config_source.h"
#include "common/strings.h"
#include "conf/config_loader.h"

namespace rota::cli {
namespace {

// A command must not fail on a warning a site lives with; errors still stop it.
Result<std::shared_ptr<const conf::ClusterConfig>> LoadQuietly(const std::string& path) {
  conf::Diagnostics diags;
  auto config = conf::LoadClusterConfig(path, diags, conf::ConfigScope::kSlurmConfOnly);
  if (!config.ok()) return InvalidArgument(ConfigErrorMessage(diags, config.status()));
  return config;
}

}  // namespace

std::string ConfigErrorMessage(const conf::Diagnostics& diags, const Status& status) {
  auto first = std::find_if(diags.all().begin(), diags.all().end(), [](const conf::Diagnostic& d) {
    return d.severity == conf::Severity::kError;
  });
  if (first == diags.all().end()) return status.message();
  std::string text = first->where.ToString() + ": " + first->message;
  // A file that cannot be read is the whole story: what follows is its consequence.
  const int more = diags.error_count() - 1;
  if (more > 0 && first->where.line > 0) {
    text += fmt::format(" (and {} more; rotactld --check-config lists them)", more);
  }
  return text;
}

Result<std::unique_ptr<ControllerClient>> ControllerClient::Create(
    const std::string& slurm_conf_path) {
  auto config = LoadQuietly(slurm_conf_path);
  if (!config.ok()) return config.status();
  auto issuer = auth::MakeIssuer(api::AuthSettingsFor(**config));
  if (!issuer.ok()) return issuer.status();
  return Create(*config, std::move(issuer).value());
}

Result<std::unique_ptr<ControllerClient>> ControllerClient::Create(
    std::shared_ptr<const conf::ClusterConfig> config,
    std::unique_ptr<auth::CredentialIssuer> issuer) {
  std::unique_ptr<ControllerClient> c(new ControllerClient());
  c->config_ = std::move(config);
  c->issuer_ = std::move(issuer);
  if (const char* t = std::getenv("SLURM_CLIENT_TIMEOUT"); t != nullptr) {
    if (std::optional<uint64_t> secs = ParseUint(t)) c->timeout_ = std::chrono::seconds(*secs);
  }
  return c;
}

Status ControllerClient::Connect() {
  const auto& controllers = config_->settings.controllers;
  Status last = Status(StatusCode::kUnavailable, "no controller configured");
  // From the one after a controller that said it is in standby, round the list.
  for (size_t tried = 0; tried < controllers.size(); ++tried) {
    const size_t index = (next_ + tried) % controllers.size();
    const conf::ControllerHost& host = controllers[index];
    std::string address = host.address.empty() ? host.name : host.address;
    last = rpc_.Connect(address, config_->settings.slurmctld_port, std::chrono::seconds(5));
    if (last.ok()) {
      connected_ = index;
      return last;
    }
  }
  return Status(
      StatusCode::kUnavailable,
      fmt::format("Unable to contact slurm controller (connect failure): {}", last.message()));
}

Result<std::string> ControllerClient::CallAt(size_t index, uint16_t method,
                                             const google::protobuf::MessageLite& request) {
  const auto& controllers = config_->settings.controllers;
  if (index >= controllers.size()) return InvalidArgument("no such SlurmctldHost");
  const conf::ControllerHost& host = controllers[index];
  rpc::RpcClient rpc;
  ROTA_RETURN_IF_ERROR(rpc.Connect(host.address.empty() ? host.name : host.address,
                                   config_->settings.slurmctld_port, std::chrono::seconds(5)));
  return api::SignedCall(rpc, *issuer_, method, request.SerializeAsString(), timeout_);
}

Result<std::string> ControllerClient::CallForBody(uint16_t method,
                                                  const google::protobuf::MessageLite& request) {
  const std::string body = request.SerializeAsString();
  // With a backup controller, a command waits as Slurm's do while control
  // passes from one to the other: SlurmctldTimeout to notice, a few seconds
  // to take over.
  const size_t controllers = config_->settings.controllers.size();
  const auto deadline =
      std::chrono::steady_clock::now() +
      (controllers > 1 ? std::chrono::seconds(config_->settings.slurmctld_timeout + 5)
                       : std::chrono::seconds(0));
  Status last = Status::Ok();
  for (;;) {
    Status connected = rpc_.connected() ? Status::Ok() : Connect();
    if (connected.ok()) {
      // Once a request was sent, its answer (or the lack of one) is final:
      // sending it again could submit a job twice.
      Result<std::string> answer = api::SignedCall(rpc_, *issuer_, method, body, timeout_);
      if (answer.ok() || !api::IsStandbyAnswer(answer.status())) return answer;
      // In standby: the next controller may be in control.
      last = answer.status();
      rpc_.Close();
      next_ = connected_ + 1;
    } else {
      last = connected;
    }
    if (std::chrono::steady_clock::now() >= deadline) return last;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

Status ControllerClient::Call(uint16_t method, const google::protobuf::MessageLite& request,
                              google::protobuf::MessageLite* response) {
  Result<std::string> body = CallForBody(method, request);
  if (!body.ok()) return body.status();
  if (response != nullptr && !response->ParseFromString(*body)) {
    return InvalidArgument("malformed answer from the controller");
  }
  return Status::Ok();
}

bool CallControllerOnce(std::string_view program, uint16_t method,
                        const google::protobuf::MessageLite& request,
                        google::protobuf::MessageLite* response) {
  auto client = ControllerClient::Create(CommandSlurmConfPath());
  Status s = client.ok() ? (*client)->Call(method, request, response) : client.status();
  if (s.ok()) return true;
  std::cerr << program << ": error: " << s.message() << "\n";
  return false;
}

}  // namespace rota::cli
