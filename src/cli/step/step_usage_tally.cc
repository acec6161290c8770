#include "cli/step/step_usage_tally.h"

#include <algorithm>

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

void StepUsageTally::AddCpu(uint64_t user_us, uint64_t system_us) {
  user_cpu_us_ += user_us;
  system_cpu_us_ += system_us;
}

void StepUsageTally::AddGpu(const wire::GpuUsage& g) {
  if (g.samples() == 0) return;
  ++gpu_nodes_;
  gpu_.set_gpus(gpu_.gpus() + g.gpus());
  gpu_.set_samples(std::max(gpu_.samples(), g.samples()));
  gpu_.set_util_ave(gpu_.util_ave() + g.util_ave());
  gpu_.set_util_max(gpu_.util_max() + g.util_max());
  gpu_.set_mem_max_bytes(gpu_.mem_max_bytes() + g.mem_max_bytes());
  gpu_.set_mem_ave_bytes(gpu_.mem_ave_bytes() + g.mem_ave_bytes());
  gpu_.set_mem_total_bytes(gpu_.mem_total_bytes() + g.mem_total_bytes());
  gpu_.set_energy_j(gpu_.energy_j() + g.energy_j());
  gpu_.set_power_max_mw(gpu_.power_max_mw() + g.power_max_mw());
  gpu_.set_node(gpu_nodes_ == 1 ? g.node() : "");
}

wire::StepUsage StepUsageTally::Summary() const {
  wire::StepUsage out;
  if (measured_ > 0) {
    out = max_;
    out.set_ave_rss_kb((total_kb_ + measured_ / 2) / measured_);
    out.set_tasks(measured_);
  }
  out.set_user_cpu_us(user_cpu_us_);
  out.set_system_cpu_us(system_cpu_us_);
  if (gpu_nodes_ > 0) *out.mutable_gpu() = gpu_;
  return out;
}

}  // namespace rota::cli
