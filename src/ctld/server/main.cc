// rotactld: the Rota controller.
#include <getopt.h>

#include <cstdio>
#include <iostream>
#include <string>

#include "conf/config_loader.h"
#include "ctld/server/check_config.h"

namespace {

void Usage(FILE* to) {
  std::fprintf(to,
               "Usage: rotactld [-f slurm.conf] [--check-config]\n"
               "  -f, --config FILE   configuration file (default: $SLURM_CONF or "
               "/etc/slurm/slurm.conf)\n"
               "      --check-config  validate the configuration, print every error and "
               "warning, start nothing\n"
               "  -h, --help          this text\n");
}

}  // namespace

int main(int argc, char** argv) {
  std::string conf_path = rota::conf::DefaultSlurmConfPath();
  bool check_only = false;
  enum { kCheckConfig = 1000 };
  const option long_options[] = {
      {"config", required_argument, nullptr, 'f'},
      {"check-config", no_argument, nullptr, kCheckConfig},
      {"help", no_argument, nullptr, 'h'},
      {nullptr, 0, nullptr, 0},
  };
  int c;
  while ((c = getopt_long(argc, argv, "f:h", long_options, nullptr)) != -1) {
    switch (c) {
      case 'f':
        conf_path = optarg;
        break;
      case kCheckConfig:
        check_only = true;
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
  // The controller service itself (RPC, state loop, durable state) is not built yet.
  std::fprintf(stderr,
               "rotactld: the controller service is not available in this build; only "
               "--check-config works\n");
  return 1;
}
