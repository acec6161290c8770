#pragma once

// The device files of MIG instances. The NVIDIA driver gives each MIG GPU
// instance and compute instance an "access" capability with a minor number,
// listed in /proc/driver/nvidia-caps/mig-minors as lines like
// "gpu0/gi1/ci0/access 21"; the device node is /dev/nvidia-caps/nvidia-cap21.
// A job on a MIG instance needs that file as well as its parent /dev/nvidiaN.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace rota::noded {

inline constexpr char kMigMinorsPath[] = "/proc/driver/nvidia-caps/mig-minors";

// Capability path ("gpu0/gi1/ci0/access") -> minor, from mig-minors' text.
// Lines that are not "<path> <number>" are skipped.
std::map<std::string, uint32_t> ParseMigMinors(std::string_view text);

// The device file of compute instance `ci` of GPU instance `gi` on the GPU
// with minor `gpu_minor`, or nullopt when `minors` does not list it.
std::optional<std::string> MigAccessFile(const std::map<std::string, uint32_t>& minors,
                                         uint32_t gpu_minor, uint32_t gi, uint32_t ci);

}  // namespace rota::noded
