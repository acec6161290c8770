// rotactld: the Rota controller.
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>

#include "common/daemon_command_line.h"
#include "common/daemon_life.h"
#include "common/log.h"
#include "conf/config_loader.h"
#include "ctld/ha/ha_controller.h"
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
  rota::DaemonCommandLine line;
  line.slurm_conf_path = rota::conf::DefaultSlurmConfPath();
  bool check_only = false;
  enum { kCheckConfig = 1000 };
  rota::DaemonOptions own;
  own.long_options = {{"check-config", no_argument, nullptr, kCheckConfig}};
  own.apply = [&](int, const char*) { check_only = true; };
  if (std::optional<int> exit =
          rota::ParseDaemonCommandLine(argc, argv, "rotactld", Usage, own, line)) {
    return *exit;
  }
  if (check_only) return rota::ctld::CheckConfig(line.slurm_conf_path, std::cout, std::cerr);

  rota::InitLogging("rotactld", line.log_level);
  // With a backup (several SlurmctldHost lines), control passes between the
  // controllers through a lease in StateSaveLocation (ctld/ha/ha_controller.h).
  rota::conf::Diagnostics diags;
  auto config = rota::conf::LoadClusterConfig(line.slurm_conf_path, diags);
  if (config.ok() && (*config)->settings.controllers.size() > 1) {
    return rota::RunUntilStopSignal(
        [&] { return rota::ctld::HaController::Start({.slurm_conf_path = line.slurm_conf_path}); });
  }
  return rota::RunUntilStopSignal(
      [&] { return rota::ctld::ControllerDaemon::Start({line.slurm_conf_path}); });
}
