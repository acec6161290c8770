#include "noded/node_credential_socket.h"

#include "common/log.h"

namespace rota::noded {

std::unique_ptr<auth::CredentialSocketServer> ServeNodeCredentials(
    const auth::AuthSettings& settings) {
  if (settings.auth_type != "auth/slurm") return nullptr;
  auto server = auth::ServeCredentialSocket(settings);
  if (server.ok()) {
    spdlog::info("signing credentials for local users on {}", (*server)->path());
    return std::move(server).value();
  }
  if (server.status().code() == StatusCode::kAlreadyExists) {
    spdlog::info("{}; leaving it to that one", server.status().message());
  } else {
    spdlog::warn("local users cannot get credentials from this node: {}",
                 server.status().message());
  }
  return nullptr;
}

}  // namespace rota::noded
