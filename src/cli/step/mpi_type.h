#pragma once

// srun's --mpi types (docs/mpi.md): "none", "pmi2" (the PMI-2 server of each
// node, noded/pmi/pmi2_tasks.h), "pmix" (a PMIx server per node,
// noded/pmi/pmix_tasks.h; also named pmix_v3 and pmix_v4, as Slurm's
// versioned plugins) and "list".

#include <string>
#include <string_view>

#include "common/status.h"

namespace rota::cli {

// What `srun --mpi=list` prints.
inline constexpr std::string_view kMpiTypeList =
    "MPI plugin types are...\n\tnone\n\tpmi2\n\tpmix\n"
    "specific pmix plugin versions available: pmix_v3,pmix_v4\n";

// The type srun uses for `value` (--mpi, SLURM_MPI_TYPE, MpiDefault):
// "none", "pmi2", "pmix" or "list". Errors: complete "srun: error: ..." lines.
Result<std::string> CheckMpiType(std::string_view value);

}  // namespace rota::cli
