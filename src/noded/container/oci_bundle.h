#pragma once

// --container=BUNDLE (Slurm 23.02): the user's own OCI bundle, run by the
// runtime oci.conf names. Each task (and a batch script) gets a copy of the
// bundle's config.json with its own process (the step's command, the task's
// environment) in a directory of the node's; the root file system stays the
// user's.

#include <sys/types.h>

#include <string>
#include <vector>

#include "common/status.h"
#include "noded/container/container_bundle.h"
#include "noded/container/oci_conf.h"

namespace rota::noded {

struct OciBundleTask {
  std::string bundle;    // The user's bundle directory (absolute)
  std::string task_dir;  // Where the task's config.json goes (made, owned by the user)
  std::vector<std::string> argv;
  std::vector<std::string> env;  // NAME=value
  uid_t uid = 0;
  gid_t gid = 0;
  OciPatternValues pattern;  // Its bundle and rootfs are filled in here
  // Host files mounted read only at the same path inside (a batch script).
  std::vector<std::string> host_files;
};

// Writes the task's config.json and returns the command that runs it:
// /bin/sh -c with oci.conf's RunTimeRun expanded. Errors: the bundle's
// config.json missing, not readable by the user, or not an OCI runtime
// configuration; the task's directory not made.
Result<ContainerCommand> OciBundleCommand(const OciConf& oci, OciBundleTask task);

// OciBundleCommand with the node's oci.conf (beside slurm.conf, at
// `slurm_conf_path`), the task's directory made under
// `containers_dir`/job_J/ (J, the step and the task from task.pattern).
// Errors, besides OciBundleCommand's: no oci.conf, one with errors or
// without RunTimeRun (its warnings are logged).
Result<ContainerCommand> NodeOciBundleCommand(const std::string& slurm_conf_path,
                                              const std::string& containers_dir,
                                              OciBundleTask task);

}  // namespace rota::noded
