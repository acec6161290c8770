// rota-authd: signs auth/slurm credentials for the users of a login host,
// who may not read slurm.key, on a local Unix socket that checks each caller's
// uid and gid with the kernel (auth/credential_socket.h). Compute nodes need
// no rota-authd: rotad serves the same socket there.
#include <cstdio>
#include <optional>
#include <string>

#include "api/auth_settings.h"
#include "auth/credential_socket_server.h"
#include "common/daemon_command_line.h"
#include "common/daemon_life.h"
#include "common/log.h"
#include "conf/config_loader.h"

namespace {

void Usage(FILE* to) {
  std::fprintf(to,
               "Usage: rota-authd [-D] [-f slurm.conf] [-s SOCKET] [-v]\n"
               "  -f, --config FILE   configuration file (default: $SLURM_CONF or "
               "/etc/slurm/slurm.conf);\n"
               "                      the key is slurm.key beside it\n"
               "  -s, --socket PATH   serve this socket (default: AuthInfo=socket=PATH, else "
               "/run/rota/auth.socket)\n"
               "  -D                  run in the foreground (the only mode for now)\n"
               "  -v                  more log output\n"
               "  -h, --help          this text\n");
}

rota::Result<std::unique_ptr<rota::auth::CredentialSocketServer>> Serve(
    const std::string& slurm_conf_path, const std::string& socket_path) {
  rota::conf::Diagnostics diags;
  auto config = rota::conf::LoadClusterConfig(slurm_conf_path, diags,
                                              rota::conf::ConfigScope::kSlurmConfOnly);
  if (!config.ok()) {
    return rota::InvalidArgument(diags.ToString() + config.status().message());
  }
  rota::auth::AuthSettings settings = rota::api::AuthSettingsFor(**config);
  if (!socket_path.empty()) settings.credential_socket = socket_path;
  if (settings.auth_type != "auth/slurm") {
    return rota::FailedPrecondition(
        "AuthType is " + settings.auth_type +
        ": rota-authd serves auth/slurm only (under auth/munge, munged issues credentials)");
  }
  auto server = rota::auth::ServeCredentialSocket(settings);
  if (server.ok()) spdlog::info("signing credentials for local users on {}", (*server)->path());
  return server;
}

}  // namespace

int main(int argc, char** argv) {
  rota::DaemonCommandLine line;
  line.slurm_conf_path = rota::conf::DefaultSlurmConfPath();
  std::string socket_path;
  rota::DaemonOptions own;
  own.short_options = "s:";
  own.long_options = {{"socket", required_argument, nullptr, 's'}};
  own.apply = [&](int, const char* argument) { socket_path = argument; };
  if (std::optional<int> exit =
          rota::ParseDaemonCommandLine(argc, argv, "rota-authd", Usage, own, line)) {
    return *exit;
  }
  rota::InitLogging("rota-authd", line.log_level);
  return rota::RunUntilStopSignal([&] { return Serve(line.slurm_conf_path, socket_path); });
}
