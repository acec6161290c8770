#pragma once

// Checks that span files: the silent mismatches that make a Slurm cluster
// misbehave without an error (slurm.conf promising 8 GPUs that gres.conf
// describes as 4, affinity cores a node does not have, a GRES name missing
// from GresTypes). Settings that are valid but costly are the configuration
// doctor's (config_doctor.h).

#include "conf/cluster_config.h"
#include "conf/diagnostics.h"

namespace rota::conf {

// REQUIRES: every file of `config` has been parsed.
void CrossValidate(const ClusterConfig& config, Diagnostics& diags);

}  // namespace rota::conf
