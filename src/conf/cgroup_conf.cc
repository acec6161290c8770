#include "conf/cgroup_conf.h"

#include <fmt/format.h>

#include "common/strings.h"
#include "conf/key_table.h"
#include "conf/unenforced_keys.h"

namespace rota::conf {
namespace {

auto PercentField(double CgroupConf::*field) {
  return [field](CgroupConf& c, std::string_view v) {
    std::string_view number = v;
    if (!number.empty() && number.back() == '%') number.remove_suffix(1);
    std::optional<double> d = ParseDouble(number);
    if (!d || *d < 0) return InvalidArgument("is not a percentage");
    c.*field = *d;
    return Status::Ok();
  };
}

const KeyTable<CgroupConf>& CgroupKeys() {
  using C = CgroupConf;
  static const KeyTable<C> table{
      {"CgroupPlugin", ChoiceField(&C::plugin, {"autodetect", "cgroup/v1", "cgroup/v2"})},
      {"CgroupMountpoint", StringField(&C::mountpoint)},
      {"ConstrainCores", BoolField(&C::constrain_cores)},
      {"ConstrainRAMSpace", BoolField(&C::constrain_ram_space)},
      {"ConstrainDevices", BoolField(&C::constrain_devices)},
      {"ConstrainSwapSpace", BoolField(&C::constrain_swap_space)},
      {"AllowedRAMSpace", PercentField(&C::allowed_ram_space_percent)},
      {"AllowedSwapSpace", PercentField(&C::allowed_swap_space_percent)},
      {"MaxRAMPercent", PercentField(&C::max_ram_percent)},
      {"MaxSwapPercent", PercentField(&C::max_swap_percent)},
      {"MinRAMSpace",
       [](C& c, std::string_view v) { return ParseMemoryValue(v, c.min_ram_space_mb); }},
      {"IgnoreSystemd", BoolField(&C::ignore_systemd)},
      {"MaxTasksPerJob",
       [](C& c, std::string_view v) {
         std::optional<uint64_t> n = ParseUint(v);
         if (!n) return InvalidArgument("is not a number of tasks (0: no limit)");
         c.max_tasks_per_job = *n;
         return Status::Ok();
       }},
  };
  return table;
}

}  // namespace

CgroupConf ParseCgroupConf(const std::vector<ConfigLine>& lines, Diagnostics& diags) {
  CgroupConf conf;
  for (const ConfigLine& line : lines) {
    for (const KeyValue& kv : line.pairs) {
      bool known = CgroupKeys().Apply(kv, conf, line.where, diags);
      if (!WarnIfUnenforced(KeyPlace::kCgroupConf, kv.key, kv.value, line.where, diags) && !known) {
        diags.Warning(line.where, fmt::format("unknown key {} (ignored)", kv.key));
      }
    }
  }
  return conf;
}

}  // namespace rota::conf
