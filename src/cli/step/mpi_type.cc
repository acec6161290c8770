#include "cli/step/mpi_type.h"

namespace rota::cli {

Result<std::string> CheckMpiType(std::string_view value) {
  if (value == "none" || value == "pmi2" || value == "list") return std::string(value);
  // Slurm names its PMIx plugins pmix, pmix_v3, pmix_v4, ...
  if (value.substr(0, 4) == "pmix") {
    return InvalidArgument("srun: error: --mpi=" + std::string(value) +
                           ": pmix is not supported; use pmi2");
  }
  return InvalidArgument("srun: error: MPI type '" + std::string(value) + "' is not known");
}

}  // namespace rota::cli
