#pragma once

// The process logger (the one global STYLE.md allows). Daemons log through
// spdlog; commands keep it quiet unless asked.

#include <spdlog/spdlog.h>

#include <string_view>

namespace rota {

// Sets up the process logger: `program` names the lines, `level` is one of
// spdlog's names ("debug", "info", "warn", ...). Safe to call once at start.
void InitLogging(std::string_view program, std::string_view level = "info");

}  // namespace rota
