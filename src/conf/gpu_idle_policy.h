#pragma once

// GpuIdlePolicy=, Rota's own PartitionName key (Slurm has none; a site going
// back to Slurm takes it out): when a running job's GPUs count as idle, and
// what the controller does about it. docs/gpu-efficiency.md.
//
//   GpuIdlePolicy=threshold=5,period=30,action=notify,grace=10
//
// threshold: the GPUs' mean utilisation (%) below which a sample is idle
// (default 5); period: how long every sample must be idle before the job is
// flagged (Slurm's time syntax: minutes, MM:SS, HH:MM:SS; default 30 min);
// action: none (flag only, the default), notify (mail the user through
// MailProg), cancel or requeue once the flag has stood `grace` longer
// (default 0).

#include <string_view>

#include "common/status.h"
#include "conf/value_parsers.h"

namespace rota::conf {

struct GpuIdlePolicy {
  enum class Action { kNone, kNotify, kCancel, kRequeue };
  double threshold_pct = 5;
  DurationSecs period_s = 30 * 60;
  Action action = Action::kNone;
  DurationSecs grace_s = 0;
  bool operator==(const GpuIdlePolicy&) const = default;
};

Status ParseGpuIdlePolicy(std::string_view value, GpuIdlePolicy& out);

std::string_view GpuIdleActionName(GpuIdlePolicy::Action action);

}  // namespace rota::conf
