#pragma once

// pyxis' container options of srun, sbatch and salloc, and Slurm's
// --container (docs/containers.md): their values checked and kept in a
// wire::ContainerSpec. Pure: the option table (job_options.cc)
// calls it.

#include <map>
#include <string>
#include <string_view>

#include "common/status.h"
#include "container.pb.h"

namespace rota::cli {

// Applies option `name` (its long name without dashes, e.g.
// "container-image") with `value` to `spec`. Errors: kInvalidArgument with
// what is wrong with the value ("mount 'x' is not SRC:DST[:FLAGS]"), or
// kNotFound when `name` is not a container option.
Status ApplyContainerOption(std::string_view name, std::string_view value,
                            wire::ContainerSpec& spec);

// Whether `name` is one of the options above.
bool IsContainerOption(std::string_view name);

// What salloc exports into its allocation so that srun there runs its
// steps in the same container (as pyxis' options travel in Slurm's
// SLURM_SPANK__SLURM_SPANK_OPTION_pyxis_* variables): NAME -> value.
std::map<std::string, std::string> ContainerSpankEnvironment(const wire::ContainerSpec& spec);

// The spec those variables describe in `env` (NAME -> value); empty (no
// image) when there are none. Errors: a variable whose value is refused.
Result<wire::ContainerSpec> ContainerSpecFromSpankEnvironment(
    const std::map<std::string, std::string, std::less<>>& env);

}  // namespace rota::cli
