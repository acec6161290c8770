// rotarestd: Slurm's REST API (slurmrestd, openapi v0.0.38 and dbv0.0.38),
// OpenMetrics at /metrics, for tools that do not run commands. An ordinary
// client of rotactld and rotadbd: each request acts with its user's rights.
#include <getopt.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "api/auth_settings.h"
#include "cli/client/controller_client.h"
#include "cli/slurm_version.h"
#include "common/daemon_life.h"
#include "common/log.h"
#include "common/strings.h"
#include "common/user_names.h"
#include "conf/config_loader.h"
#include "rest/http_server.h"
#include "rest/rest_service.h"

namespace {

void Usage(FILE* to) {
  std::fprintf(to,
               "Usage: rotarestd [-f slurm.conf] [-a rest_auth/local,rest_auth/jwt] [-v]\n"
               "                 [--max-connections N] [--max-body BYTES] [--timeout S]\n"
               "                 [HOST]:PORT | unix:/PATH ...\n"
               "  -f FILE   configuration file (default: $SLURM_CONF or /etc/slurm/slurm.conf)\n"
               "  -a LIST   how callers are told apart: rest_auth/jwt (tokens from\n"
               "            `scontrol token`), rest_auth/local (Unix socket peers running as\n"
               "            rotarestd's user); default both. `-a list` names them.\n"
               "  -v        more log output\n"
               "Like slurmrestd, rotarestd refuses to run as root or SlurmUser unless\n"
               "SLURMRESTD_SECURITY=disable_user_check is set.\n");
}

// The daemon, as RunUntilStopSignal wants it: started, then stopped.
struct RestDaemon {
  std::unique_ptr<rota::rest::RestService> service;
  std::unique_ptr<rota::rest::HttpServer> server;
  void Stop() { server.reset(); }
};

}  // namespace

int main(int argc, char** argv) {
  std::string conf_path = rota::conf::DefaultSlurmConfPath();
  std::string log_level = "info";
  std::string auth_plugins = "rest_auth/local,rest_auth/jwt";
  rota::rest::HttpServerOptions http;
  enum { kMaxConnections = 1000, kMaxBody, kTimeout };
  const option long_options[] = {{"help", no_argument, nullptr, 'h'},
                                 {"version", no_argument, nullptr, 'V'},
                                 {"max-connections", required_argument, nullptr, kMaxConnections},
                                 {"max-body", required_argument, nullptr, kMaxBody},
                                 {"timeout", required_argument, nullptr, kTimeout},
                                 {nullptr, 0, nullptr, 0}};
  int c;
  while ((c = getopt_long(argc, argv, "f:a:s:vhV", long_options, nullptr)) != -1) {
    std::optional<uint64_t> number;
    switch (c) {
      case 'f':
        conf_path = optarg;
        break;
      case 'a':
        auth_plugins = optarg;
        if (auth_plugins == "list") {
          std::printf("rest_auth/local\nrest_auth/jwt\n");
          return 0;
        }
        break;
      case 's':  // slurmrestd's OpenAPI plugin list: v0.0.38 and dbv0.0.38 are all there is.
        break;
      case 'v':
        log_level = "debug";
        break;
      case 'V':
        std::fputs(std::string(rota::cli::kSlurmVersionLine).c_str(), stdout);
        return 0;
      case 'h':
        Usage(stdout);
        return 0;
      case kMaxConnections:
      case kMaxBody:
      case kTimeout:
        number = rota::ParseUint(optarg);
        if (!number || *number == 0) {
          std::fprintf(stderr, "rotarestd: invalid number '%s'\n", optarg);
          return 1;
        }
        if (c == kMaxConnections) http.max_connections = static_cast<unsigned>(*number);
        if (c == kMaxBody) http.max_body_bytes = *number;
        if (c == kTimeout) http.timeout_s = static_cast<unsigned>(*number);
        break;
      default:
        Usage(stderr);
        return 1;
    }
  }
  for (int i = optind; i < argc; ++i) http.listen.emplace_back(argv[i]);
  if (http.listen.empty()) {
    std::fprintf(stderr, "rotarestd: no address to listen on ([HOST]:PORT or unix:/PATH)\n");
    Usage(stderr);
    return 1;
  }
  rota::InitLogging("rotarestd", log_level);

  rota::rest::RestServiceOptions options;
  options.auth.jwt = false;
  options.auth.local = false;
  for (std::string_view plugin : rota::Split(auth_plugins, ',')) {
    if (plugin == "rest_auth/jwt") {
      options.auth.jwt = true;
    } else if (plugin == "rest_auth/local") {
      options.auth.local = true;
    } else {
      std::fprintf(stderr, "rotarestd: unknown authentication plugin '%.*s' (-a list)\n",
                   static_cast<int>(plugin.size()), plugin.data());
      return 1;
    }
  }
  options.auth.own_uid = static_cast<uint32_t>(geteuid());

  return rota::RunUntilStopSignal([&]() -> rota::Result<std::unique_ptr<RestDaemon>> {
    rota::conf::Diagnostics diags;
    auto config =
        rota::conf::LoadClusterConfig(conf_path, diags, rota::conf::ConfigScope::kSlurmConfOnly);
    if (!config.ok()) {
      return rota::InvalidArgument(rota::cli::ConfigErrorMessage(diags, config.status()));
    }
    const char* security = std::getenv("SLURMRESTD_SECURITY");
    const bool user_check =
        security == nullptr ||
        std::string_view(security).find("disable_user_check") == std::string_view::npos;
    const std::string own_name = rota::UserNameOrNumber(options.auth.own_uid);
    if (user_check && (options.auth.own_uid == 0 || own_name == (*config)->settings.slurm_user)) {
      return rota::Status(rota::StatusCode::kPermissionDenied,
                          "rotarestd must not run as root or SlurmUser (" + own_name +
                              "): run it as an unprivileged user, or set "
                              "SLURMRESTD_SECURITY=disable_user_check");
    }
    options.auth.auth_settings = rota::api::AuthSettingsFor(**config);
    auto daemon = std::make_unique<RestDaemon>();
    daemon->service = std::make_unique<rota::rest::RestService>(*config, options);
    rota::rest::RestService* service = daemon->service.get();
    auto server = rota::rest::HttpServer::Start(
        http, [service](const rota::rest::HttpRequest& r) { return service->Serve(r); });
    if (!server.ok()) return server.status();
    daemon->server = std::move(server).value();
    for (size_t i = 0; i < http.listen.size(); ++i) {
      const uint16_t port = daemon->server->ports()[i];
      spdlog::info("listening on {}{}", http.listen[i],
                   port != 0 ? " (port " + std::to_string(port) + ")" : std::string());
    }
    return daemon;
  });
}
