// rotad: the Rota node daemon.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "common/daemon_command_line.h"
#include "common/daemon_life.h"
#include "common/log.h"
#include "conf/config_loader.h"
#include "noded/configless.h"
#include "noded/node_daemon.h"

namespace {

void Usage(FILE* to) {
  std::fprintf(to,
               "Usage: rotad [-N NODENAME] [-D] [-f slurm.conf] [--conf-server HOST[:PORT]] [-v]\n"
               "  -N NODENAME         the NodeName line of slurm.conf this daemon serves\n"
               "                      (default: this host's short name)\n"
               "  -f, --config FILE   configuration file (default: $SLURM_CONF or "
               "/etc/slurm/slurm.conf)\n"
               "  --conf-server HOST[:PORT][,HOST[:PORT]]\n"
               "                      fetch the configuration from the controller "
               "(configless;\n"
               "                      also $SLURM_CONF_SERVER, or the DNS SRV record "
               "_slurmctld._tcp\n"
               "                      when there is no configuration file)\n"
               "  -D                  run in the foreground (the only mode for now)\n"
               "  -v                  more log output\n"
               "  -h, --help          this text\n");
}

}  // namespace

int main(int argc, char** argv) {
  rota::noded::NodeDaemonOptions options;
  rota::DaemonCommandLine line;
  // Empty until -f says: only a daemon not told a file may go configless by DNS.
  line.slurm_conf_path.clear();
  rota::DaemonOptions own;
  own.short_options = "N:";
  constexpr int kConfServer = 1000;
  own.long_options = {{"conf-server", required_argument, nullptr, kConfServer}};
  std::string conf_server;
  own.apply = [&](int option, const char* argument) {
    (option == kConfServer ? conf_server : options.node_name) = argument;
  };
  if (std::optional<int> exit =
          rota::ParseDaemonCommandLine(argc, argv, "rotad", Usage, own, line)) {
    return *exit;
  }
  const bool file_named = !line.slurm_conf_path.empty() || std::getenv("SLURM_CONF") != nullptr;
  options.slurm_conf_path =
      line.slurm_conf_path.empty() ? rota::conf::DefaultSlurmConfPath() : line.slurm_conf_path;
  if (options.node_name.empty()) {
    // As slurmd: the node this host is, by its short host name.
    char host[256] = {};
    if (gethostname(host, sizeof host - 1) != 0 || host[0] == '\0') {
      std::fprintf(stderr, "rotad: cannot read this host's name; give -N NODENAME\n");
      return 1;
    }
    options.node_name = std::string(host).substr(0, std::string_view(host).find('.'));
  }

  // Tests and demos give a daemon pretend GPUs (docs/configuration.md).
  if (const char* fake_gpus = std::getenv("ROTA_FAKE_GPUS")) options.fake_gpus_file = fake_gpus;

  rota::InitLogging("rotad", line.log_level);
  auto servers = rota::noded::ConfigServers(conf_server, options.slurm_conf_path, file_named);
  if (!servers.ok()) {
    std::fprintf(stderr, "rotad: %s\n", servers.status().message().c_str());
    return 1;
  }
  if (!servers->empty()) {
    // Configless: the key stays where slurm.conf would be (-f, $SLURM_CONF,
    // /etc/slurm); the files go to the cache.
    rota::noded::ConfiglessSource source;
    source.servers = *servers;
    source.conf_dir = std::filesystem::path(options.slurm_conf_path).parent_path().string();
    auto start = rota::noded::StartConfigless(source, std::chrono::seconds(10),
                                              std::chrono::hours(24 * 365));
    if (!start.ok()) {
      std::fprintf(stderr, "rotad: %s\n", start.status().message().c_str());
      return 1;
    }
    options.slurm_conf_path = start->slurm_conf_path;
    options.config_cache_dir = source.cache_dir;
    options.conf_dir = source.conf_dir;
    options.config_digest = start->digest;
  }
  // Jobs get a clean mask and default handlers (job_process.cc).
  return rota::RunUntilStopSignal([&] { return rota::noded::NodeDaemon::Start(options); });
}
