// rotactld: the Rota controller.
#include <getopt.h>
#include <signal.h>

#include <cstdio>
#include <iostream>
#include <string>

#include "common/daemon_life.h"
#include "common/log.h"
#include "conf/config_loader.h"
#include "ctld/server/check_config.h"
#include "ctld/server/controller_daemon.h"

namespace {

void Usage(FILE* to) {
  std::fprintf(to,
               "Usage: rotactld [-D] [-f slurm.conf] [--check-config] [-v]\n"
               "  -f, --config FILE   configuration file (default: $SLURM_CONF or "
               "/etc/slurm/slurm.conf)\n"
               "      --check-config  validate the configuration, print every error and "
               "warning, start nothing\n"
               "  -D                  run in the foreground (the only mode for now)\n"
               "  -v                  more log output\n"
               "  -h, --help          this text\n");
}

}  // namespace

int main(int argc, char** argv) {
  std::string conf_path = rota::conf::DefaultSlurmConfPath();
  bool check_only = false;
  std::string level = "info";
  enum { kCheckConfig = 1000 };
  const option long_options[] = {
      {"config", required_argument, nullptr, 'f'},
      {"check-config", no_argument, nullptr, kCheckConfig},
      {"help", no_argument, nullptr, 'h'},
      {nullptr, 0, nullptr, 0},
  };
  int c;
  while ((c = getopt_long(argc, argv, "f:hDv", long_options, nullptr)) != -1) {
    switch (c) {
      case 'f':
        conf_path = optarg;
        break;
      case kCheckConfig:
        check_only = true;
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
    std::fprintf(stderr, "rotactld: unexpected argument '%s'\n", argv[optind]);
    return 1;
  }
  if (check_only) return rota::ctld::CheckConfig(conf_path, std::cout, std::cerr);

  rota::InitLogging("rotactld", level);
  return rota::RunUntilStopSignal([&] { return rota::ctld::ControllerDaemon::Start({conf_path}); });
}
