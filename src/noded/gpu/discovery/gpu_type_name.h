#pragma once

// GPU type names for GRES ("gpu:<type>:<count>") from what NVML reports.

#include <string>
#include <string_view>

namespace rota::noded {

// The GRES type of a product name, by Rota's rule for AutoDetect: the name
// in lower case, a leading "nvidia " dropped (every product has it, so it
// tells nothing), and each remaining run of white space turned into one
// underscore. "NVIDIA A100-SXM4-80GB" -> "a100-sxm4-80gb",
// "Tesla V100-SXM2-16GB" -> "tesla_v100-sxm2-16gb",
// "NVIDIA H100 80GB HBM3" -> "h100_80gb_hbm3". Characters other than
// letters, digits, '-', '.' and '_' (which would break a GRES string) are
// dropped.
std::string GpuTypeFromProductName(std::string_view product);

// The MIG profile of a MIG device's name: "NVIDIA A100-SXM4-80GB MIG 1g.10gb"
// -> "1g.10gb". "" when the name has no " MIG " part.
std::string MigProfileFromName(std::string_view mig_device_name);

}  // namespace rota::noded
