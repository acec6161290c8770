#pragma once

// `scontrol show licenses [NAME]`: each license slurm.conf declares, with
// how many the jobs holding an allocation use, in Slurm's layout:
//   LicenseName=fluent
//       Total=4 Used=1 Free=3 Reserved=0 Remote=no

#include <string>

#include "conf/license_list.h"
#include "rota.pb.h"

namespace rota::cli {

// `name` empty: every license. Returns "" when `name` is not one of them.
std::string FormatLicenses(const conf::LicenseCounts& cluster, const wire::ListJobsResponse& jobs,
                           const std::string& name, bool one_liner);

}  // namespace rota::cli
