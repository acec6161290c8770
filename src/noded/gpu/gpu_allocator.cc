#include "noded/gpu/gpu_allocator.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>

namespace rota::noded {

GpuAllocator::GpuAllocator(std::vector<GpuDevice> devices)
    : devices_(std::move(devices)), busy_(devices_.size(), false) {}

std::vector<GpuDevice> GpuAllocator::InventoryOf(const conf::ClusterConfig& config,
                                                 const std::string& node) {
  std::vector<GpuDevice> out;
  if (const std::vector<conf::GresDevice>* described = config.gres.DevicesOf(node)) {
    for (const conf::GresDevice& d : *described) {
      if (d.name != "gpu") continue;
      uint64_t n = d.file.empty() ? d.count : 1;
      for (uint64_t i = 0; i < n; ++i) {
        // Cores= goes along: --gpu-bind=closest binds by it (step_tasks.cc).
        GpuDevice& gpu = out.emplace_back(static_cast<uint32_t>(out.size()), d.type, d.file);
        gpu.cores = d.cores;
        gpu.more_files = d.more_files;
      }
    }
  }
  if (!out.empty()) return out;
  if (const conf::NodeConfig* n = config.FindNode(node)) {
    for (const GresSpec& g : n->gres) {
      if (g.name != "gpu") continue;
      for (uint64_t i = 0; i < g.count; ++i) {
        out.push_back({static_cast<uint32_t>(out.size()), g.type, ""});
      }
    }
  }
  return out;
}

std::vector<GpuDevice> GpuAllocator::Present(std::vector<GpuDevice> devices,
                                             std::vector<std::string>* missing) {
  std::vector<GpuDevice> out;
  for (GpuDevice& d : devices) {
    struct stat st {};
    bool there = d.file.empty() ||
                 (stat(d.file.c_str(), &st) == 0 && (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)));
    if (there) {
      out.push_back(std::move(d));
    } else {
      missing->push_back(d.file);
    }
  }
  return out;
}

Result<std::vector<GpuDevice>> GpuAllocator::Allocate(uint32_t job_id, uint32_t count,
                                                      const std::string& type) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<GpuDevice> out;
  if (auto it = held_.find(job_id); it != held_.end()) {
    for (uint32_t i : it->second) out.push_back(devices_[i]);
    return out;
  }
  std::vector<uint32_t> chosen;
  for (size_t i = 0; i < devices_.size() && chosen.size() < count; ++i) {
    if (busy_[i] || (!type.empty() && devices_[i].type != type)) continue;
    chosen.push_back(static_cast<uint32_t>(i));
  }
  if (chosen.size() < count) {
    return FailedPrecondition(fmt::format("job {} needs {} GPUs{}{}, only {} are free", job_id,
                                          count, type.empty() ? "" : " of type ", type,
                                          chosen.size()));
  }
  for (uint32_t i : chosen) {
    busy_[i] = true;
    out.push_back(devices_[i]);
  }
  if (!chosen.empty()) held_[job_id] = std::move(chosen);
  return out;
}

Result<std::vector<GpuDevice>> GpuAllocator::AllocateExact(uint32_t job_id,
                                                           const std::vector<uint32_t>& indices) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<GpuDevice> out;
  if (auto it = held_.find(job_id); it != held_.end()) {
    for (uint32_t i : it->second) out.push_back(devices_[i]);
    return out;
  }
  for (uint32_t i : indices) {
    if (i >= devices_.size()) {
      return FailedPrecondition(fmt::format("job {}: GPU index {} does not exist on this node ({})",
                                            job_id, i, devices_.size()));
    }
    if (busy_[i]) {
      return FailedPrecondition(fmt::format("job {}: GPU {} is held by another job", job_id, i));
    }
  }
  for (uint32_t i : indices) {
    busy_[i] = true;
    out.push_back(devices_[i]);
  }
  if (!indices.empty()) held_[job_id] = indices;
  return out;
}

void GpuAllocator::Release(uint32_t job_id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = held_.find(job_id);
  if (it == held_.end()) return;
  for (uint32_t i : it->second) busy_[i] = false;
  held_.erase(it);
}

std::string GpuAllocator::GresSummary() const {
  // Count per type in order of first appearance, as gres.conf lists them.
  std::vector<std::pair<std::string, uint64_t>> counts;
  for (const GpuDevice& d : devices_) {
    auto it = std::find_if(counts.begin(), counts.end(),
                           [&](const auto& c) { return c.first == d.type; });
    if (it == counts.end()) {
      counts.emplace_back(d.type, 1);
    } else {
      ++it->second;
    }
  }
  std::string out;
  for (const auto& [type, n] : counts) {
    if (!out.empty()) out += ",";
    out += type.empty() ? fmt::format("gpu:{}", n) : fmt::format("gpu:{}:{}", type, n);
  }
  return out;
}

}  // namespace rota::noded
