#pragma once

// Linux CPU lists as cpuset and /sys print them: "0-3,8,10-11".

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rota::noded {

// The CPUs `text` names, ascending; nullopt when it is malformed. "" is empty.
std::optional<std::vector<uint32_t>> ParseCpuList(std::string_view text);
// Ranges folded: {0,1,2,5} -> "0-2,5".
std::string FormatCpuList(const std::vector<uint32_t>& cpus);

}  // namespace rota::noded
