#include "noded/gpu/gpu_usage_meter.h"

#include <algorithm>
#include <cmath>

namespace rota::noded {

void GpuUsageMeter::Watch(uint64_t key, const std::vector<uint32_t>& indices, double at_s) {
  Tally t;
  t.indices = indices;
  t.last_at_s = at_s;
  jobs_[key] = std::move(t);
}

void GpuUsageMeter::Record(const std::vector<GpuReading>& readings, double at_s) {
  std::map<std::string_view, const GpuReading*> by_file;
  for (const GpuReading& r : readings) by_file[r.device_file] = &r;
  for (auto& [key, t] : jobs_) {
    uint64_t util = 0;
    uint64_t mem = 0;
    uint64_t mem_total = 0;
    uint64_t power_mw = 0;
    bool read = false;
    for (uint32_t index : t.indices) {
      if (index >= files_.size() || files_[index].empty()) continue;
      auto it = by_file.find(files_[index]);
      if (it == by_file.end()) continue;
      read = true;
      util += it->second->util_pct;
      mem += it->second->mem_used_bytes;
      mem_total += it->second->mem_total_bytes;
      power_mw += it->second->power_mw;
    }
    t.latest_mean_util.reset();
    if (!read) continue;
    t.latest_mean_util = static_cast<double>(util) / static_cast<double>(t.indices.size());
    ++t.samples;
    t.util_sum += static_cast<double>(util);
    t.util_max = std::max(t.util_max, static_cast<uint32_t>(util));
    t.mem_sum += static_cast<double>(mem);
    t.mem_max = std::max(t.mem_max, mem);
    t.mem_total = std::max(t.mem_total, mem_total);
    t.power_max_mw = std::max(t.power_max_mw, static_cast<uint32_t>(power_mw));
    // The power read now stands for the time since the previous sample.
    t.energy_j += static_cast<double>(power_mw) / 1000.0 * std::max(0.0, at_s - t.last_at_s);
    t.last_at_s = at_s;
  }
}

wire::GpuUsage GpuUsageMeter::Summary(const Tally& t) {
  wire::GpuUsage u;
  u.set_gpus(static_cast<uint32_t>(t.indices.size()));
  u.set_samples(t.samples);
  if (t.samples == 0) return u;
  const double n = t.samples;
  u.set_util_ave(t.util_sum / n);
  u.set_util_max(t.util_max);
  u.set_mem_ave_bytes(static_cast<uint64_t>(std::llround(t.mem_sum / n)));
  u.set_mem_max_bytes(t.mem_max);
  u.set_mem_total_bytes(t.mem_total);
  u.set_energy_j(t.energy_j);
  u.set_power_max_mw(t.power_max_mw);
  return u;
}

std::optional<wire::GpuUsage> GpuUsageMeter::Current(uint64_t key) const {
  auto it = jobs_.find(key);
  if (it == jobs_.end()) return std::nullopt;
  return Summary(it->second);
}

std::optional<wire::GpuUsage> GpuUsageMeter::Finish(uint64_t key) {
  std::optional<wire::GpuUsage> u = Current(key);
  jobs_.erase(key);
  return u;
}

std::optional<double> GpuUsageMeter::LatestMeanUtil(uint64_t key) const {
  auto it = jobs_.find(key);
  return it == jobs_.end() ? std::nullopt : it->second.latest_mean_util;
}

std::map<uint64_t, std::vector<uint32_t>> GpuUsageMeter::Watched() const {
  std::map<uint64_t, std::vector<uint32_t>> out;
  for (const auto& [key, t] : jobs_) out[key] = t.indices;
  return out;
}

}  // namespace rota::noded
