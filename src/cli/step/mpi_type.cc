#include "cli/step/mpi_type.h"

namespace rota::cli {

Result<std::string> CheckMpiType(std::string_view value) {
  if (value == "none" || value == "pmi2" || value == "list") return std::string(value);
  // One PMIx server serves clients of PMIx 3 and 4 alike.
  if (value == "pmix" || value == "pmix_v3" || value == "pmix_v4") return std::string("pmix");
  return InvalidArgument("srun: error: MPI type '" + std::string(value) + "' is not known");
}

}  // namespace rota::cli
