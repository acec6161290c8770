#pragma once

// Which slurm.conf a command reads, found as Slurm's commands find it:
//   1. $SLURM_CONF;
//   2. /etc/slurm/slurm.conf;
//   3. the copy a configless rotad keeps on this host (/run/slurm/conf);
//   4. fetched from the controller that $SLURM_CONF_SERVER or the DNS SRV
//      record _slurmctld._tcp names (SlurmctldParameters=enable_configless),
//      into a private directory removed when the command exits.
// When none is found: the default path, so that the usual error names it.

#include <string>

namespace rota::cli {

// Found once per process; later calls return the same path.
const std::string& CommandSlurmConfPath();

}  // namespace rota::cli
