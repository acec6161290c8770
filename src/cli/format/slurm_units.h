#pragma once
// Numbers with unit suffixes the way Slurm's convert_num_unit() prints them
// in listings: divide by 1024 while the value allows, print whole numbers
// plainly and fractions with two decimals ("1G", "500G", "1.46G", "32").
#include <optional>
#include <string>
#include <string_view>

namespace rota::cli::format {

enum class Unit { kNone = 0, kKilo, kMega, kGiga, kTera, kPeta };

// `value` counted in `unit` (memory in MB is Unit::kMega). With `convert`
// false (the commands' --noconvert) the value stays in `unit`: "2048M".
std::string ConvertNumUnit(double value, Unit unit, bool convert = true);

// `value` counted in `unit`, shown in `target` whatever its size (the
// accounting commands' --units): "0.98G" for 1000 MB, "51200K" for 50 MB.
std::string ConvertNumUnitTo(double value, Unit unit, Unit target);

// The unit a --units value names by its first letter, any case (K, M, G, T,
// P); none for anything else.
std::optional<Unit> UnitFromLetter(std::string_view text);

}  // namespace rota::cli::format
