#pragma once

// `rota why JOBID`: the controller's answer (proto/why.proto) for people, and
// as JSON for tools (`rota why --json`). docs/why.md explains how to read it.

#include <cstdint>
#include <string>

#include "why.pb.h"

namespace rota::cli {

// The report in words; times in local time as Slurm prints them.
std::string FormatWhyText(const wire::WhyResponse& why);
// The same as one JSON object (field names in docs/why.md; times as Unix seconds).
std::string FormatWhyJson(const wire::WhyResponse& why);

}  // namespace rota::cli
