#pragma once

// License lists as slurm.conf's Licenses= declares them and as jobs ask for
// them with -L/--licenses: "foo:4,bar" (a name alone counts 1; Slurm's older
// "foo*4" is read too). Names keep their case, as Slurm's do.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "common/status.h"

namespace rota::conf {

using LicenseCounts = std::map<std::string, uint32_t>;  // Name -> count, ordered for output

// Fails (InvalidArgument "is not a license list") on an empty name, a count
// that is not a whole number, a name given twice.
Result<LicenseCounts> ParseLicenseList(std::string_view text);

// "bar:1,foo:4": every count written.
std::string FormatLicenseList(const LicenseCounts& licenses);

}  // namespace rota::conf
