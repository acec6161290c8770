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

}  // namespace rota::noded
