#pragma once

// scontrol's daemon-free subcommands on hostlists, used by job prologs:
//   scontrol show hostnames [EXPR]      one host per line (EXPR defaults to
//                                       $SLURM_JOB_NODELIST, else $SLURM_NODELIST)
//   scontrol show hostlist EXPR         compressed, in the order given
//   scontrol show hostlistsorted EXPR   compressed, sorted
// EXPR may also name a file that holds host names.

#include <ostream>
#include <string>
#include <vector>

namespace rota::cli {

// Runs `show hostnames|hostlist|hostlistsorted` with `args` after the entity.
// Returns the exit code; output to `out`, errors (prefixed "scontrol: error: ") to `err`.
int ShowHostlist(const std::string& entity, const std::vector<std::string>& args, std::ostream& out,
                 std::ostream& err);

// What `show hostnames` expands when given no list, from the values of
// SLURM_JOB_NODELIST and SLURM_NODELIST (nullptr: unset): the first one set
// and not empty, as Slurm's scontrol reads them; "" when neither is.
std::string DefaultHostnamesList(const char* job_nodelist, const char* nodelist);

}  // namespace rota::cli
