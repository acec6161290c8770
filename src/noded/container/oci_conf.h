#pragma once

// oci.conf (Slurm 23.02, beside slurm.conf): how `srun --container=BUNDLE`
// runs an OCI bundle the user made. rotad reads it at each such step, so a
// change needs no restart. Only RunTimeRun's way is done: the runtime runs
// the task's container to its end; RunTimeCreate/Start/Query/Kill/Delete,
// hooks and the environment file are accepted and warned about.

#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "conf/diagnostics.h"

namespace rota::noded {

struct OciConf {
  std::string run;            // RunTimeRun: the command pattern
  std::string env_exclude{};  // RunTimeEnvExclude: variables (a regex) not passed in
};

// Reads `path`. A missing file is kNotFound; errors and warnings (keys not
// acted on, unknown keys, a bad regex) go to `diags` with file and line.
Result<OciConf> LoadOciConf(const std::string& path, conf::Diagnostics& diags);

// What a pattern's % letters stand for (oci.conf's "OCI Pattern").
struct OciPatternValues {
  std::string bundle;    // %b: the task's bundle directory
  std::string rootfs;    // %r: its root file system
  std::string node;      // %n
  std::string user;      // %u
  uint32_t uid = 0;      // %U
  uint32_t job_id = 0;   // %j
  uint32_t step_id = 0;  // %s
  uint32_t task_id = 0;  // %t
  std::string spool;     // %m: the step's spool directory here
};

// `pattern` with %b %r %n %u %U %j %s %t %m and %% replaced; an unknown
// letter is kept as written.
std::string ExpandOciPattern(std::string_view pattern, const OciPatternValues& values);

}  // namespace rota::noded
