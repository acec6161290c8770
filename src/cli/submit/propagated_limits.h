#pragma once

// What sbatch, salloc and srun send of their own resource limits: the soft
// limits slurm.conf's PropagateResourceLimits (default ALL) or
// PropagateResourceLimitsExcept name. The node daemon sets them on the tasks.

#include <google/protobuf/repeated_ptr_field.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "conf/slurm_conf.h"
#include "rota.pb.h"

namespace rota::cli {

// Appends this process's soft limits that `settings` propagate to `out`;
// `chosen` (the command's --propagate: ALL, NONE or names), when given,
// replaces slurm.conf's choice.
void AddPropagatedLimits(const conf::SlurmConf& settings,
                         google::protobuf::RepeatedPtrField<wire::ResourceLimit>* out,
                         const std::optional<std::vector<std::string>>& chosen = std::nullopt);

// --propagate's value as a list for `chosen` above: ALL when given bare,
// else the names (ALL, NONE, AS, CORE, ... any case). Fails on another name.
Result<std::vector<std::string>> ParsePropagateOption(std::string_view value, bool has_value);

}  // namespace rota::cli
