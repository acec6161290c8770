#include "cli/step/step_usage_tally.h"

namespace rota::cli {

void StepUsageTally::Add(uint32_t task, const std::string& node, uint64_t max_rss_kb) {
  if (max_rss_kb == 0) return;
  total_kb_ += max_rss_kb;
  ++measured_;
  const bool higher = max_rss_kb > max_.max_rss_kb();
  const bool tie_lower_task = max_rss_kb == max_.max_rss_kb() && task < max_.max_rss_task();
  if (measured_ == 1 || higher || tie_lower_task) {
    max_.set_max_rss_kb(max_rss_kb);
    max_.set_max_rss_node(node);
    max_.set_max_rss_task(task);
  }
}

wire::StepUsage StepUsageTally::Summary() const {
  if (measured_ == 0) return {};
  wire::StepUsage out = max_;
  out.set_ave_rss_kb((total_kb_ + measured_ / 2) / measured_);
  out.set_tasks(measured_);
  return out;
}

}  // namespace rota::cli
