#pragma once

// srun's --mpi types (docs/mpi.md): "none", "pmi2" (the PMI-2 server of each
// node, noded/pmi/pmi2_tasks.h) and "list"; "pmix" is refused with a pointer to
// pmi2.

#include <string>
#include <string_view>

#include "common/status.h"

namespace rota::cli {

// What `srun --mpi=list` prints.
inline constexpr std::string_view kMpiTypeList = "MPI plugin types are...\n\tnone\n\tpmi2\n";

// The type srun uses for `value` (--mpi, SLURM_MPI_TYPE, MpiDefault):
// "none", "pmi2" or "list". Errors: complete "srun: error: ..." lines.
Result<std::string> CheckMpiType(std::string_view value);

}  // namespace rota::cli
