#pragma once

// What sbatch, salloc and srun send of their own resource limits: the soft
// limits slurm.conf's PropagateResourceLimits (default ALL) or
// PropagateResourceLimitsExcept name. The node daemon sets them on the tasks.

#include <google/protobuf/repeated_ptr_field.h>

#include "conf/slurm_conf.h"
#include "rota.pb.h"

namespace rota::cli {

// Appends this process's soft limits that `settings` propagate to `out`.
void AddPropagatedLimits(const conf::SlurmConf& settings,
                         google::protobuf::RepeatedPtrField<wire::ResourceLimit>* out);

}  // namespace rota::cli
