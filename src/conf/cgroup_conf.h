#pragma once

// cgroup.conf: how rotad cages jobs. Defaults are Slurm's.

#include <optional>
#include <string>
#include <vector>

#include "conf/config_reader.h"
#include "conf/diagnostics.h"

namespace rota::conf {

struct CgroupConf {
  std::string plugin = "autodetect";  // cgroup/v1, cgroup/v2, autodetect
  std::string mountpoint = "/sys/fs/cgroup";
  bool constrain_cores = false;
  bool constrain_ram_space = false;
  bool constrain_devices = false;
  bool constrain_swap_space = false;
  double allowed_ram_space_percent = 100.0;
  double allowed_swap_space_percent = 0.0;
  double max_ram_percent = 100.0;
  double max_swap_percent = 100.0;
  uint64_t min_ram_space_mb = 30;
  bool ignore_systemd = false;
  // Rota's own key, MaxTasksPerJob: the most processes and threads a job may
  // have on a node at once (cgroup pids controller), so that a fork bomb in
  // one job cannot take the host's process table from the others. Unset: a
  // quarter of the host's limit (kernel.threads-max, kernel.pid_max); 0: none.
  std::optional<uint64_t> max_tasks_per_job;
};

CgroupConf ParseCgroupConf(const std::vector<ConfigLine>& lines, Diagnostics& diags);

}  // namespace rota::conf
