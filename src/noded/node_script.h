#pragma once

// The site's scripts a node daemon runs as root: HealthCheckProgram, Prolog and
// Epilog. A failure becomes a drain reason that says what the script printed.

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

namespace rota::noded {

// The PATH node scripts run with (they get no user environment).
inline constexpr char kScriptPath[] =
    "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

struct ScriptOutcome {
  bool ok = true;
  std::string reason;  // When not ok: the script's first line, or how it failed.
};

// Runs `program` (no shell) with `environment` (NAME=value; empty: none) and
// stdin from /dev/null, collecting its output; kills it (and what it started)
// after `timeout`. `what` names it in reasons ("Prolog", "HealthCheckProgram").
ScriptOutcome RunNodeScript(const std::string& program, const std::vector<std::string>& environment,
                            std::chrono::seconds timeout, std::string_view what);

// Prolog=/etc/slurm/prolog.d/* : the matching files, in order; a plain path as is.
std::vector<std::string> ExpandScriptPattern(const std::string& pattern);

}  // namespace rota::noded
