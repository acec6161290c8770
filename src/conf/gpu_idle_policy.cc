#include "conf/gpu_idle_policy.h"

#include <fmt/format.h>

#include "common/strings.h"

namespace rota::conf {

Status ParseGpuIdlePolicy(std::string_view value, GpuIdlePolicy& out) {
  GpuIdlePolicy p;
  for (std::string_view item : Split(value, ',')) {
    item = Trim(item);
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    const std::string key = ToLower(item.substr(0, eq));
    const std::string_view v = eq == std::string_view::npos ? "" : item.substr(eq + 1);
    auto bad = [&](std::string_view why) {
      return InvalidArgument(fmt::format("has '{}', {}", item, why));
    };
    if (key == "threshold") {
      std::optional<double> pct = ParseDouble(v);
      if (!pct || *pct < 0 || *pct > 100) return bad("not a percentage");
      p.threshold_pct = *pct;
    } else if (key == "period" || key == "grace") {
      DurationSecs t = 0;
      if (!ParseTimeValue(v, t).ok() || t < 0) return bad("not a time");
      (key == "period" ? p.period_s : p.grace_s) = t;
    } else if (key == "action") {
      const std::string a = ToLower(v);
      if (a == "none") {
        p.action = GpuIdlePolicy::Action::kNone;
      } else if (a == "notify") {
        p.action = GpuIdlePolicy::Action::kNotify;
      } else if (a == "cancel") {
        p.action = GpuIdlePolicy::Action::kCancel;
      } else if (a == "requeue") {
        p.action = GpuIdlePolicy::Action::kRequeue;
      } else {
        return bad("not none, notify, cancel or requeue");
      }
    } else {
      return bad("not threshold=, period=, action= or grace=");
    }
  }
  if (p.period_s <= 0) return InvalidArgument("has a period of 0");
  out = p;
  return Status::Ok();
}

std::string_view GpuIdleActionName(GpuIdlePolicy::Action action) {
  switch (action) {
    case GpuIdlePolicy::Action::kNone:
      return "none";
    case GpuIdlePolicy::Action::kNotify:
      return "notify";
    case GpuIdlePolicy::Action::kCancel:
      return "cancel";
    case GpuIdlePolicy::Action::kRequeue:
      return "requeue";
  }
  return "none";
}

}  // namespace rota::conf
