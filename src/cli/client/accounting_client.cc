#include "cli/client/accounting_client.h"

#include <fmt/format.h>

#include <cstdlib>

#include "api/auth_settings.h"
#include "api/signed_call.h"
#include "cli/client/controller_client.h"
#include "common/strings.h"
#include "conf/config_loader.h"

namespace rota::cli {

Result<std::unique_ptr<AccountingClient>> AccountingClient::Create(
    const std::string& slurm_conf_path) {
  conf::Diagnostics diags;
  auto config = conf::LoadClusterConfig(slurm_conf_path, diags, conf::ConfigScope::kSlurmConfOnly);
  if (!config.ok()) return InvalidArgument(ConfigErrorMessage(diags, config.status()));
  if ((*config)->settings.accounting_storage_type != "accounting_storage/slurmdbd") {
    return Status(StatusCode::kFailedPrecondition, "Slurm accounting storage is disabled");
  }
  auto issuer = auth::MakeIssuer(api::AuthSettingsFor(**config));
  if (!issuer.ok()) return issuer.status();
  return Create(*config, std::move(issuer).value());
}

Result<std::unique_ptr<AccountingClient>> AccountingClient::Create(
    std::shared_ptr<const conf::ClusterConfig> config,
    std::unique_ptr<auth::CredentialIssuer> issuer) {
  if (config->settings.accounting_storage_type != "accounting_storage/slurmdbd") {
    return Status(StatusCode::kFailedPrecondition, "Slurm accounting storage is disabled");
  }
  std::unique_ptr<AccountingClient> c(new AccountingClient());
  c->config_ = std::move(config);
  c->issuer_ = std::move(issuer);
  if (const char* t = std::getenv("SLURM_CLIENT_TIMEOUT"); t != nullptr) {
    if (std::optional<uint64_t> secs = ParseUint(t)) c->timeout_ = std::chrono::seconds(*secs);
  }
  return c;
}

Status AccountingClient::Call(uint16_t method, const google::protobuf::MessageLite& request,
                              google::protobuf::MessageLite* response) {
  Result<std::string> answer_body = CallForBody(method, request);
  if (!answer_body.ok()) return answer_body.status();
  if (response != nullptr && !response->ParseFromString(*answer_body)) {
    return InvalidArgument("malformed answer from rotadbd");
  }
  return Status::Ok();
}

Result<std::string> AccountingClient::CallForBody(uint16_t method,
                                                  const google::protobuf::MessageLite& request) {
  if (!rpc_.connected()) {
    std::string host = config_->settings.accounting_storage_host;
    if (host.empty()) host = "localhost";
    Status s =
        rpc_.Connect(host, config_->settings.accounting_storage_port, std::chrono::seconds(5));
    if (!s.ok()) {
      return Status(StatusCode::kUnavailable,
                    fmt::format("Problem talking to the database: {}", s.message()));
    }
  }
  return api::SignedCall(rpc_, *issuer_, method, request.SerializeAsString(), timeout_);
}

}  // namespace rota::cli
