// rotad: the Rota node daemon.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "common/daemon_command_line.h"
#include "common/daemon_life.h"
#include "common/log.h"
#include "conf/config_loader.h"
#include "noded/node_daemon.h"

namespace {

void Usage(FILE* to) {
  std::fprintf(to,
               "Usage: rotad [-N NODENAME] [-D] [-f slurm.conf] [-v]\n"
               "  -N NODENAME         the NodeName line of slurm.conf this daemon serves\n"
               "                      (default: this host's short name)\n"
               "  -f, --config FILE   configuration file (default: $SLURM_CONF or "
               "/etc/slurm/slurm.conf)\n"
               "  -D                  run in the foreground (the only mode for now)\n"
               "  -v                  more log output\n"
               "  -h, --help          this text\n");
}

}  // namespace

int main(int argc, char** argv) {
  rota::noded::NodeDaemonOptions options;
  rota::DaemonCommandLine line;
  line.slurm_conf_path = rota::conf::DefaultSlurmConfPath();
  rota::DaemonOptions own;
  own.short_options = "N:";
  own.apply = [&](int, const char* argument) { options.node_name = argument; };
  if (std::optional<int> exit =
          rota::ParseDaemonCommandLine(argc, argv, "rotad", Usage, own, line)) {
    return *exit;
  }
  options.slurm_conf_path = line.slurm_conf_path;
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
  // Jobs get a clean mask and default handlers (job_process.cc).
  return rota::RunUntilStopSignal([&] { return rota::noded::NodeDaemon::Start(options); });
}
