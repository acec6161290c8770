#include "noded/stepd/step_usage.h"

namespace rota::noded {

wire::StepUsage BatchStepUsage(std::optional<uint64_t> cage_peak_bytes, uint64_t script_maxrss_kb,
                               const std::string& node) {
  wire::StepUsage usage;
  const uint64_t kb =
      cage_peak_bytes && *cage_peak_bytes > 0 ? (*cage_peak_bytes + 1023) / 1024 : script_maxrss_kb;
  if (kb == 0) return usage;
  usage.set_max_rss_kb(kb);
  usage.set_max_rss_node(node);
  usage.set_max_rss_task(0);
  usage.set_ave_rss_kb(kb);
  usage.set_tasks(1);
  return usage;
}

namespace {
uint64_t Micros(const timeval& t) {
  return t.tv_sec < 0
             ? 0
             : static_cast<uint64_t>(t.tv_sec) * 1000000 + static_cast<uint64_t>(t.tv_usec);
}
}  // namespace

uint64_t UserCpuMicros(const rusage& used) { return Micros(used.ru_utime); }
uint64_t SystemCpuMicros(const rusage& used) { return Micros(used.ru_stime); }

}  // namespace rota::noded
