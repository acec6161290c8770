// rotad: the Rota node daemon.
#include <getopt.h>
#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/daemon_life.h"
#include "common/log.h"
#include "conf/config_loader.h"
#include "noded/node_daemon.h"

namespace {

void Usage(FILE* to) {
  std::fprintf(to,
               "Usage: rotad -N NODENAME [-D] [-f slurm.conf] [-v]\n"
               "  -N NODENAME         the NodeName line of slurm.conf this daemon serves\n"
               "  -f, --config FILE   configuration file (default: $SLURM_CONF or "
               "/etc/slurm/slurm.conf)\n"
               "  -D                  run in the foreground (the only mode for now)\n"
               "  -v                  more log output\n"
               "  -h, --help          this text\n");
}

}  // namespace

int main(int argc, char** argv) {
  rota::noded::NodeDaemonOptions options;
  options.slurm_conf_path = rota::conf::DefaultSlurmConfPath();
  std::string level = "info";
  const option long_options[] = {
      {"config", required_argument, nullptr, 'f'},
      {"help", no_argument, nullptr, 'h'},
      {nullptr, 0, nullptr, 0},
  };
  int c;
  while ((c = getopt_long(argc, argv, "N:f:hDv", long_options, nullptr)) != -1) {
    switch (c) {
      case 'N':
        options.node_name = optarg;
        break;
      case 'f':
        options.slurm_conf_path = optarg;
        break;
      case 'D':
        break;
      case 'v':
        level = "debug";
        break;
      case 'h':
        Usage(stdout);
        return 0;
      default:
        Usage(stderr);
        return 1;
    }
  }
  if (optind < argc) {
    std::fprintf(stderr, "rotad: unexpected argument '%s'\n", argv[optind]);
    return 1;
  }
  if (options.node_name.empty()) {
    std::fprintf(stderr, "rotad: -N NODENAME is required\n");
    Usage(stderr);
    return 1;
  }

  // Tests and demos give a daemon pretend GPUs (docs/configuration.md).
  if (const char* fake_gpus = std::getenv("ROTA_FAKE_GPUS")) options.fake_gpus_file = fake_gpus;

  rota::InitLogging("rotad", level);
  // Jobs get a clean mask and default handlers (job_process.cc).
  return rota::RunUntilStopSignal([&] { return rota::noded::NodeDaemon::Start(options); });
}
