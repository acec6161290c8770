#pragma once

// A backup controller that is not in control (docs/reliability.md, "A backup
// controller") answers everything but kPing and kTakeover with this refusal.
// Commands and node daemons that get it go to the next SlurmctldHost, and
// wait for one to take control, instead of failing.

#include <string>
#include <string_view>

#include "common/status.h"

namespace rota::api {

inline constexpr std::string_view kStandbyRefusal = "controller in standby";

// What a controller in standby answers; `in_control`: who is, when known.
inline Status StandbyAnswer(std::string_view in_control) {
  std::string message(kStandbyRefusal);
  if (!in_control.empty()) message += ": " + std::string(in_control) + " is in control";
  return Status(StatusCode::kUnavailable, message);
}

inline bool IsStandbyAnswer(const Status& status) {
  return status.code() == StatusCode::kUnavailable &&
         std::string_view(status.message()).starts_with(kStandbyRefusal);
}

}  // namespace rota::api
