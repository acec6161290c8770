#pragma once

// The configuration doctor: settings that Slurm accepts and Rota loads, but
// that quietly cost a GPU cluster something (GPU use unbilled or unrecorded,
// GPUs open to every job of a node, big jobs starved by backfill, jobs that
// take a whole node's memory). Each finding is a warning at the line to
// change that says what the setting costs; none is an error, since the file
// is valid.
//
// `rotactld --check-config` prints the findings and rotactld logs them at
// start. Other traps are found while loading (cross_validation.cc: Cores=
// beyond a node's cores; unenforced_keys.cc: keys accepted without effect);
// docs/configuration.md lists them all.

#include "conf/cluster_config.h"
#include "conf/diagnostics.h"

namespace rota::conf {

// Adds a warning to `diags` for each trap `config` falls into.
// REQUIRES: `config` was loaded with ConfigScope::kCluster (gres.conf and
// cgroup.conf are judged too). slurm.conf and cgroup.conf are read again from
// beside config.slurm_conf_path to find the line each setting is on; when a
// setting is not written, the finding names the file.
void DiagnoseTraps(const ClusterConfig& config, Diagnostics& diags);

}  // namespace rota::conf
