#pragma once

// HealthCheckProgram: run the site's node check (NHC and the like) and turn a
// failure into a drain reason that says what it printed.

#include <chrono>
#include <string>

namespace rota::noded {

struct HealthCheckOutcome {
  bool healthy = true;
  std::string reason;  // When not healthy: the program's first line, or how it failed.
};

// Runs `program` (no shell) as the daemon's user with stdin from /dev/null,
// collecting its output; kills it after `timeout`.
HealthCheckOutcome RunHealthCheck(const std::string& program, std::chrono::seconds timeout);

}  // namespace rota::noded
