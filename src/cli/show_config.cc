#include "cli/show_config.h"

#include <fmt/format.h>
#include <pwd.h>

#include "cli/show_config_keys.h"
#include "cli/slurm_time.h"
#include "cli/slurm_version.h"
#include "common/strings.h"
#include "conf/preempt_mode.h"

namespace rota::cli {
namespace {

// slurm.conf's value for `key`, matched without regard to case; nullptr if unset.
const std::string* SetValue(const conf::ClusterConfig& config, std::string_view key) {
  for (const auto& [k, v] : config.settings.raw) {
    if (EqualsIgnoreCase(k, key)) return &v;
  }
  return nullptr;
}

// The unit Slurm prints after this key's number ("sec", "MB", "percent"),
// read off its default ("30 sec" -> " sec"); "" when it has none.
std::string UnitOf(std::string_view fallback) {
  size_t space = fallback.rfind(' ');
  if (space == std::string_view::npos) return "";
  std::string_view unit = fallback.substr(space);
  for (std::string_view u : {" sec", " MB", " percent", " usec", " min"}) {
    if (unit == u) return std::string(u);
  }
  return "";
}

std::string UserWithUid(const std::string& name) {
  struct passwd* pw = getpwnam(name.c_str());
  return pw == nullptr ? name : fmt::format("{}({})", name, pw->pw_uid);
}

std::string Line(std::string_view key, const std::string& value) {
  std::string padded(key);
  if (padded.size() < 23) padded.resize(23, ' ');
  return padded + " = " + value + "\n";
}

std::string YesNo(bool b) { return b ? "yes" : "no"; }

}  // namespace

std::string FormatShowConfig(const conf::ClusterConfig& config, const ShowConfigContext& context) {
  std::string out = "Configuration data as of " + FormatSlurmTime(context.now) + "\n";
  for (const ConfigKey& key : kShowConfigKeys) {
    std::string value(key.fallback);
    if (const std::string* set = SetValue(config, key.name)) {
      value = *set;
      std::string unit = UnitOf(key.fallback);
      if (!unit.empty() && ParseUint(value).has_value()) value += unit;
      if (key.name == "SlurmUser" || key.name == "SlurmdUser") value = UserWithUid(value);
      if (key.name == "SelectTypeParameters") value = ToUpper(value);
    } else if (key.name == "DefMemPerCPU") {
      out += Line("DefMemPerNode", "UNLIMITED");  // What Slurm shows when neither is set
      continue;
    }
    if (key.name == "SLURM_CONF") value = config.slurm_conf_path;
    if (key.name == "SLURM_VERSION") value = kSlurmVersion;
    if (key.name == "BOOT_TIME" || key.name == "NEXT_JOB_ID") continue;  // The controller's own
    if (key.name == "SlurmctldHost[0]") {
      if (config.settings.controllers.empty()) {
        value = "(null)";
      } else {
        const conf::ControllerHost& c = config.settings.controllers.front();
        value = c.address.empty() ? c.name : fmt::format("{}({})", c.name, c.address);
      }
    }
    out += Line(key.name, value);
  }
  if (conf::MaySuspendJobs(config)) {
    out += fmt::format("\nWARNING: {}\n", conf::kSuspendGpuWarning);
  }
  if (conf::TimeSlicesJobs(config)) out += fmt::format("\nWARNING: {}\n", conf::kGangGpuWarning);
  const conf::CgroupConf& cg = config.cgroup;
  out += "\nCgroup Support Configuration:\n";
  for (const ConfigKey& key : kShowCgroupKeys) {
    std::string value(key.fallback);
    if (key.name == "AllowedRAMSpace") value = fmt::format("{:.1f}%", cg.allowed_ram_space_percent);
    if (key.name == "AllowedSwapSpace")
      value = fmt::format("{:.1f}%", cg.allowed_swap_space_percent);
    if (key.name == "CgroupMountpoint") value = cg.mountpoint;
    if (key.name == "CgroupPlugin") value = cg.plugin;
    if (key.name == "ConstrainCores") value = YesNo(cg.constrain_cores);
    if (key.name == "ConstrainDevices") value = YesNo(cg.constrain_devices);
    if (key.name == "ConstrainRAMSpace") value = YesNo(cg.constrain_ram_space);
    if (key.name == "ConstrainSwapSpace") value = YesNo(cg.constrain_swap_space);
    if (key.name == "IgnoreSystemd") value = YesNo(cg.ignore_systemd);
    if (key.name == "MaxRAMPercent") value = fmt::format("{:.1f}%", cg.max_ram_percent);
    if (key.name == "MaxSwapPercent") value = fmt::format("{:.1f}%", cg.max_swap_percent);
    if (key.name == "MinRAMSpace") value = fmt::format("{} MB", cg.min_ram_space_mb);
    out += Line(key.name, value);
  }
  out += fmt::format("\nSlurmctld(primary) at {} is {}\n", context.controller_host,
                     context.controller_up ? "UP" : "DOWN");
  return out;
}

}  // namespace rota::cli
