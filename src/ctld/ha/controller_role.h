#pragma once

// Which SlurmctldHost line a rotactld is, as slurmctld tells: by the host
// name of the machine it runs on.

#include <string>
#include <string_view>

#include "common/status.h"
#include "conf/cluster_config.h"

namespace rota::ctld {

// This machine's host name, up to its first dot.
std::string ShortHostName();

// The index of the SlurmctldHost line naming `host` (0: the primary), names
// compared up to their first dot. With one line, 0 whatever the name: a
// single controller runs where it is started.
// Errors: several lines and none names `host`.
Result<size_t> ControllerIndex(const conf::ClusterConfig& config, std::string_view host);

}  // namespace rota::ctld
