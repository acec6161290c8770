#include "noded/gpu/discovery/fake_gpu_provider.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "common/strings.h"
#include "noded/cpu_list.h"
#include "noded/gpu/discovery/word_lines.h"

namespace rota::noded {
namespace {

// The number that ends `file` ("/dev/nvidia12" -> 12), or 0.
uint32_t TrailingNumber(std::string_view file) {
  size_t start = file.size();
  while (start > 0 && file[start - 1] >= '0' && file[start - 1] <= '9') --start;
  std::optional<uint64_t> n = ParseUint(file.substr(start));
  return n && *n <= UINT32_MAX ? static_cast<uint32_t>(*n) : 0;
}

// Fills `gpu` from one Key=Value word. Returns what is wrong, or "".
std::string ApplyWord(std::string_view word, DiscoveredGpu& gpu, bool& minor_given) {
  size_t eq = word.find('=');
  if (eq == std::string_view::npos || eq == 0) return fmt::format("\"{}\" is not Key=Value", word);
  std::string key = ToLower(word.substr(0, eq));
  std::string_view value = word.substr(eq + 1);
  if (key == "type") {
    gpu.type = std::string(value);
  } else if (key == "file") {
    gpu.device_file = std::string(value);
  } else if (key == "parentfile") {
    gpu.parent_device_file = std::string(value);
  } else if (key == "minor") {
    std::optional<uint64_t> n = ParseUint(value);
    if (!n || *n > UINT32_MAX) return fmt::format("Minor=\"{}\" is not a number", value);
    gpu.minor = static_cast<uint32_t>(*n);
    minor_given = true;
  } else if (key == "pcibusid") {
    gpu.pci_bus_id = std::string(value);
  } else if (key == "cpus") {
    std::optional<std::vector<uint32_t>> cpus = ParseCpuList(value);
    if (!cpus) return fmt::format("Cpus=\"{}\" is not a CPU list", value);
    gpu.cpus = std::move(*cpus);
  } else if (key == "uuid") {
    gpu.uuid = std::string(value);
  } else if (key == "metrics") {
    gpu.scripted_readings = std::string(value);
  } else {
    return fmt::format("unknown key \"{}\"", word.substr(0, eq));
  }
  return "";
}

}  // namespace

Result<std::vector<DiscoveredGpu>> ParseFakeGpuInventory(std::string_view text,
                                                         std::string_view origin) {
  std::vector<DiscoveredGpu> out;
  Status read = ForEachWordLine(text, origin, [&](const std::vector<std::string_view>& words) {
    DiscoveredGpu gpu;
    bool minor_given = false;
    for (std::string_view word : words) {
      if (std::string why = ApplyWord(word, gpu, minor_given); !why.empty()) return why;
    }
    if (gpu.type.empty()) return std::string("Type= is missing");
    if (gpu.device_file.empty()) return std::string("File= is missing");
    if (!minor_given) gpu.minor = TrailingNumber(gpu.device_file);
    gpu.index = static_cast<uint32_t>(out.size());
    out.push_back(std::move(gpu));
    return std::string();
  });
  if (!read.ok()) return read;
  return out;
}

Result<std::vector<DiscoveredGpu>> FakeGpuProvider::Discover() {
  std::ifstream in(path_);
  if (!in) return NotFound(fmt::format("fake GPU inventory {} cannot be read", path_));
  std::stringstream text;
  text << in.rdbuf();
  return ParseFakeGpuInventory(text.str(), path_);
}

}  // namespace rota::noded
