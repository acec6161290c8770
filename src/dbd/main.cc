// rotadbd: the Rota accounting daemon.
#include <getopt.h>
#include <signal.h>

#include <cstdio>
#include <string>

#include "common/daemon_life.h"
#include "common/log.h"
#include "conf/config_loader.h"
#include "dbd/dbd_daemon.h"

namespace {

void Usage(FILE* to) {
  std::fprintf(to,
               "Usage: rotadbd [-D] [-f slurm.conf] [-d slurmdbd.conf] [-s DIR] [-v]\n"
               "  -f, --config FILE     configuration file (default: $SLURM_CONF or "
               "/etc/slurm/slurm.conf)\n"
               "  -d, --dbd-config FILE storage settings (default: slurmdbd.conf beside "
               "slurm.conf;\n"
               "                        without one, SQLite in the state directory)\n"
               "  -s, --state-dir DIR   where the database lives (default: "
               "<StateSaveLocation>/rotadbd)\n"
               "  -D                    run in the foreground (the only mode for now)\n"
               "  -v                    more log output\n"
               "  -h, --help            this text\n");
}

}  // namespace

int main(int argc, char** argv) {
  rota::dbd::DbdOptions options;
  options.slurm_conf_path = rota::conf::DefaultSlurmConfPath();
  std::string level = "info";
  const option long_options[] = {
      {"config", required_argument, nullptr, 'f'},
      {"dbd-config", required_argument, nullptr, 'd'},
      {"state-dir", required_argument, nullptr, 's'},
      {"help", no_argument, nullptr, 'h'},
      {nullptr, 0, nullptr, 0},
  };
  int c;
  while ((c = getopt_long(argc, argv, "f:d:s:hDv", long_options, nullptr)) != -1) {
    switch (c) {
      case 'f':
        options.slurm_conf_path = optarg;
        break;
      case 'd':
        options.dbd_conf_path = optarg;
        break;
      case 's':
        options.state_dir = optarg;
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
    std::fprintf(stderr, "rotadbd: unexpected argument '%s'\n", argv[optind]);
    return 1;
  }
  rota::InitLogging("rotadbd", level);
  return rota::RunUntilStopSignal([&] { return rota::dbd::DbdDaemon::Start(options); });
}
