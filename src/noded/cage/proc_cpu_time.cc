#include "noded/cage/proc_cpu_time.h"

#include <unistd.h>

#include "common/strings.h"
#include "noded/cage/cgroup_files.h"

namespace rota::noded {

std::optional<CageCpuTime> ParseProcStatCpu(std::string_view stat_line, long ticks_per_second) {
  const size_t name_end = stat_line.rfind(')');
  if (name_end == std::string_view::npos || ticks_per_second <= 0) return std::nullopt;
  // After the name: state (field 3) first, utime is field 14.
  std::vector<std::string_view> fields;
  for (std::string_view f : Split(Trim(stat_line.substr(name_end + 1)), ' ')) {
    if (!f.empty()) fields.push_back(f);
  }
  constexpr size_t kUtime = 14 - 3;
  if (fields.size() < kUtime + 4) return std::nullopt;
  uint64_t ticks[4];
  for (size_t i = 0; i < 4; ++i) {
    std::optional<uint64_t> v = ParseUint(fields[kUtime + i]);
    if (!v) return std::nullopt;
    ticks[i] = *v;
  }
  const uint64_t micros_per_tick = 1'000'000 / static_cast<uint64_t>(ticks_per_second);
  return CageCpuTime{(ticks[0] + ticks[2]) * micros_per_tick,
                     (ticks[1] + ticks[3]) * micros_per_tick};
}

std::optional<CageCpuTime> ProcessesCpuTime(const std::vector<pid_t>& pids,
                                            const std::string& proc_root) {
  const long ticks = sysconf(_SC_CLK_TCK);
  std::optional<CageCpuTime> total;
  for (pid_t pid : pids) {
    std::optional<CageCpuTime> one = ParseProcStatCpu(
        cgroup_files::ReadFile(proc_root + "/" + std::to_string(pid) + "/stat"), ticks);
    if (!one) continue;
    if (!total) total = CageCpuTime{};
    total->user_us += one->user_us;
    total->system_us += one->system_us;
  }
  return total;
}

}  // namespace rota::noded
