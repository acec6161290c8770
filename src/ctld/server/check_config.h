#pragma once

// `rotactld --check-config`: validates a configuration and reports every
// finding, the configuration doctor's traps (conf/config_doctor.h) included,
// starting nothing.

#include <ostream>
#include <string>

namespace rota::ctld {

// Loads `slurm_conf_path` and the files beside it and, when they load, looks
// for traps; prints each error and warning to `err` and a one-line verdict to
// `out`. Returns the process exit code: 0 when the configuration is usable, 1
// when it has errors.
int CheckConfig(const std::string& slurm_conf_path, std::ostream& out, std::ostream& err);

}  // namespace rota::ctld
