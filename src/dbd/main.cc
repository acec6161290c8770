// rotadbd: the Rota accounting daemon.
#include <cstdio>
#include <optional>
#include <string>

#include "common/daemon_command_line.h"
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
  rota::DaemonCommandLine line;
  line.slurm_conf_path = rota::conf::DefaultSlurmConfPath();
  rota::DaemonOptions own;
  own.short_options = "d:s:";
  own.long_options = {{"dbd-config", required_argument, nullptr, 'd'},
                      {"state-dir", required_argument, nullptr, 's'}};
  own.apply = [&](int option, const char* argument) {
    (option == 'd' ? options.dbd_conf_path : options.state_dir) = argument;
  };
  if (std::optional<int> exit =
          rota::ParseDaemonCommandLine(argc, argv, "rotadbd", Usage, own, line)) {
    return *exit;
  }
  options.slurm_conf_path = line.slurm_conf_path;
  rota::InitLogging("rotadbd", line.log_level);
  return rota::RunUntilStopSignal([&] { return rota::dbd::DbdDaemon::Start(options); });
}
