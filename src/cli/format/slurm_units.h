#pragma once
// Numbers with unit suffixes the way Slurm's convert_num_unit() prints them
// in listings: divide by 1024 while the value allows, print whole numbers
// plainly and fractions with two decimals ("1G", "500G", "1.46G", "32").
#include <string>

namespace rota::cli::format {

enum class Unit { kNone = 0, kKilo, kMega, kGiga, kTera, kPeta };

// `value` counted in `unit` (memory in MB is Unit::kMega). With `convert`
// false (the commands' --noconvert) the value stays in `unit`: "2048M".
std::string ConvertNumUnit(double value, Unit unit, bool convert = true);

}  // namespace rota::cli::format
