#include "noded/gpu/gres_device_files.h"

#include <algorithm>
#include <set>
#include <tuple>

namespace rota::noded {

std::vector<std::string> HostGresFiles(const conf::ClusterConfig& config, const std::string& node,
                                       const std::vector<GpuDevice>& inventory) {
  std::set<std::string> files;
  auto add_lines_of = [&](const std::string& name) {
    if (const std::vector<conf::GresDevice>* devices = config.gres.DevicesOf(name)) {
      for (const conf::GresDevice& d : *devices) {
        if (!d.file.empty()) files.insert(d.file);
        files.insert(d.more_files.begin(), d.more_files.end());
      }
    }
  };
  add_lines_of(node);
  if (const conf::NodeConfig* self = config.FindNode(node)) {
    for (const conf::NodeConfig& other : config.nodes) {
      if (other.name != node && other.address == self->address) add_lines_of(other.name);
    }
  }
  for (const std::string& file : GrantedFiles(inventory)) files.insert(file);
  return {files.begin(), files.end()};
}

std::vector<std::string> GrantedFiles(const std::vector<GpuDevice>& gpus) {
  std::vector<std::string> files;
  for (const GpuDevice& gpu : gpus) {
    for (const std::string* file : {&gpu.file, &gpu.parent_file}) {
      if (!file->empty()) files.push_back(*file);
    }
    files.insert(files.end(), gpu.more_files.begin(), gpu.more_files.end());
  }
  return files;
}

std::vector<DeviceRule> DeniedDeviceRules(const std::vector<std::string>& gres_files,
                                          const std::vector<std::string>& granted) {
  auto key = [](const DeviceRule& r) { return std::make_tuple(r.type, r.major, r.minor); };
  std::set<std::tuple<char, int64_t, int64_t>> allowed;
  for (const std::string& file : granted) {
    if (Result<DeviceRule> rule = DeviceRuleFor(file); rule.ok()) allowed.insert(key(*rule));
  }
  std::set<std::tuple<char, int64_t, int64_t>> denied;
  for (const std::string& file : gres_files) {
    Result<DeviceRule> rule = DeviceRuleFor(file);
    if (rule.ok() && !allowed.contains(key(*rule))) denied.insert(key(*rule));
  }
  std::vector<DeviceRule> rules;
  rules.reserve(denied.size());
  for (const auto& [type, major, minor] : denied) rules.push_back(DeviceRule{type, major, minor});
  return rules;
}

std::vector<DeviceRule> DeniedDevicesFor(const conf::ClusterConfig& config, const std::string& node,
                                         const std::vector<GpuDevice>& inventory,
                                         const std::vector<GpuDevice>& gpus) {
  return DeniedDeviceRules(HostGresFiles(config, node, inventory), GrantedFiles(gpus));
}

}  // namespace rota::noded
