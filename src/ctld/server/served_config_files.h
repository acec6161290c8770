#pragma once

// SlurmctldParameters=enable_configless: the files the controller serves to
// node daemons and commands without a slurm.conf (api::kFetchConfig), read
// when the controller starts and at each reconfigure, so that what is served
// is what the controller runs with, not a file edited since.

#include <memory>

#include "common/status.h"
#include "conf/cluster_config.h"
#include "rota.pb.h"

namespace rota::ctld {

using ServedConfigFiles = std::shared_ptr<const wire::ConfigFilesResponse>;

// The set for `config` (conf/config_files.h), or null when configless is off.
// Errors name a file that cannot be read.
Result<ServedConfigFiles> ReadServedConfigFiles(const conf::ClusterConfig& config);

}  // namespace rota::ctld
