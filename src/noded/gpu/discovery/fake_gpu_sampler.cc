#include "noded/gpu/discovery/fake_gpu_sampler.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "common/memory_size.h"
#include "common/strings.h"
#include "noded/gpu/discovery/fake_gpu_provider.h"
#include "noded/gpu/discovery/word_lines.h"

namespace rota::noded {
namespace {

constexpr uint64_t kMiB = 1024 * 1024;

// kind[:code] of an Event= value; nullopt when it is none of them.
std::optional<GpuEvent> ParseEvent(std::string_view text) {
  std::string lower = ToLower(text);
  if (lower == "ecc") return GpuEvent{GpuEventKind::kDoubleBitEcc, 0};
  if (lower == "lost") return GpuEvent{GpuEventKind::kFallenOffBus, 0};
  if (lower == "retired-pages") return GpuEvent{GpuEventKind::kRetiredPagesPending, 0};
  if (lower.starts_with("xid:")) {
    std::optional<uint64_t> code = ParseUint(std::string_view(lower).substr(4));
    if (code) return GpuEvent{GpuEventKind::kXid, *code};
  }
  return std::nullopt;
}

Result<std::string> ReadFile(const std::string& path, std::string_view what) {
  std::ifstream in(path);
  if (!in) return NotFound(fmt::format("{} {} cannot be read", what, path));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Applies one figure of a moment to `r`. Returns what is wrong, or "".
std::string ApplyFigure(const std::string& key, const std::string& value, GpuReading& r) {
  auto number = [&](uint64_t max, uint64_t& out) {
    std::optional<uint64_t> n = ParseUint(value);
    if (!n || *n > max) return false;
    out = *n;
    return true;
  };
  uint64_t n = 0;
  if (key == "util") {
    if (!number(100, n)) return fmt::format("Util=\"{}\" is not a percentage", value);
    r.util_pct = static_cast<uint32_t>(n);
  } else if (key == "memused" || key == "memtotal") {
    Result<MemoryMb> mb = ParseMemoryMb(value);
    if (!mb.ok()) return fmt::format("{}=\"{}\" is not a size", key, value);
    (key == "memused" ? r.mem_used_bytes : r.mem_total_bytes) = *mb * kMiB;
  } else if (key == "power") {
    std::optional<double> watts = ParseDouble(value);
    if (!watts || *watts < 0 || *watts > 1e6)
      return fmt::format("Power=\"{}\" is not watts", value);
    r.power_mw = static_cast<uint32_t>(*watts * 1000 + 0.5);
  } else if (key == "temp") {
    if (!number(1000, n)) return fmt::format("Temp=\"{}\" is not degrees", value);
    r.temperature_c = static_cast<uint32_t>(n);
  } else if (key == "pids") {
    r.pids.clear();
    for (std::string_view word : Split(value, ',')) {
      if (Trim(word).empty()) continue;
      std::optional<uint64_t> pid = ParseUint(Trim(word));
      if (!pid || *pid == 0 || *pid > INT32_MAX)
        return fmt::format("Pids=\"{}\" is not pids", value);
      r.pids.push_back(static_cast<pid_t>(*pid));
    }
  } else {
    return fmt::format("unknown key \"{}\"", key);
  }
  return "";
}

}  // namespace

Result<std::vector<ScriptedMoment>> ParseGpuScript(std::string_view text, std::string_view origin) {
  std::vector<ScriptedMoment> out;
  Status read = ForEachWordLine(text, origin, [&](const std::vector<std::string_view>& words) {
    ScriptedMoment moment;
    std::optional<double> at = ParseDouble(words.front());
    if (!at || *at < 0) return fmt::format("\"{}\" is not seconds", words.front());
    moment.at_s = *at;
    for (size_t i = 1; i < words.size(); ++i) {
      const std::string_view word = words[i];
      size_t eq = word.find('=');
      if (eq == std::string_view::npos || eq == 0) {
        return fmt::format("\"{}\" is not Key=Value", word);
      }
      std::string key = ToLower(word.substr(0, eq));
      std::string value(word.substr(eq + 1));
      if (key == "event") {
        std::optional<GpuEvent> event = ParseEvent(value);
        if (!event) {
          return fmt::format("Event=\"{}\" is not xid:N, ecc, lost or retired-pages", value);
        }
        moment.events.push_back(*event);
        continue;
      }
      GpuReading check;  // Values are checked now, so a bad script fails at once.
      if (std::string why = ApplyFigure(key, value, check); !why.empty()) return why;
      moment.values[key] = std::move(value);
    }
    out.push_back(std::move(moment));
    return std::string();
  });
  if (!read.ok()) return read;
  return out;
}

Result<GpuReading> ScriptedReading(const std::vector<ScriptedMoment>& script,
                                   const std::string& device_file, double elapsed_s,
                                   std::set<size_t>& fired, std::string_view origin) {
  GpuReading r;
  r.device_file = device_file;
  for (size_t i = 0; i < script.size(); ++i) {
    const ScriptedMoment& moment = script[i];
    if (moment.at_s > elapsed_s) continue;
    for (const auto& [key, value] : moment.values) {
      if (std::string why = ApplyFigure(key, value, r); !why.empty()) {
        return InvalidArgument(fmt::format("{}: {}", origin, why));
      }
    }
    if (!moment.events.empty() && fired.insert(i).second) {
      r.events.insert(r.events.end(), moment.events.begin(), moment.events.end());
    }
  }
  return r;
}

FakeGpuSampler::FakeGpuSampler(std::string inventory_path, Clock clock)
    : inventory_path_(std::move(inventory_path)),
      clock_(clock ? std::move(clock) : Clock([] { return std::chrono::steady_clock::now(); })),
      start_(clock_()) {}

Result<std::vector<GpuReading>> FakeGpuSampler::Sample() {
  Result<std::string> inventory_text = ReadFile(inventory_path_, "fake GPU inventory");
  if (!inventory_text.ok()) return inventory_text.status();
  Result<std::vector<DiscoveredGpu>> gpus = ParseFakeGpuInventory(*inventory_text, inventory_path_);
  if (!gpus.ok()) return gpus.status();
  const double elapsed = std::chrono::duration<double>(clock_() - start_).count();
  std::vector<GpuReading> out;
  for (const DiscoveredGpu& gpu : *gpus) {
    // A MIG instance is read as its parent GPU, once.
    const std::string& file = gpu.is_mig() ? gpu.parent_device_file : gpu.device_file;
    if (std::any_of(out.begin(), out.end(),
                    [&](const GpuReading& r) { return r.device_file == file; })) {
      continue;
    }
    if (gpu.scripted_readings.empty()) {
      GpuReading idle;
      idle.device_file = file;
      out.push_back(std::move(idle));
      continue;
    }
    Result<std::string> text = ReadFile(gpu.scripted_readings, "GPU script");
    if (!text.ok()) return text.status();
    Result<std::vector<ScriptedMoment>> script = ParseGpuScript(*text, gpu.scripted_readings);
    if (!script.ok()) return script.status();
    Result<GpuReading> reading = ScriptedReading(
        *script, file, elapsed, fired_[gpu.scripted_readings], gpu.scripted_readings);
    if (!reading.ok()) return reading.status();
    out.push_back(std::move(reading).value());
  }
  return out;
}

}  // namespace rota::noded
