#include "common/log.h"

#include <spdlog/sinks/stdout_color_sinks.h>

#include <string>

namespace rota {

void InitLogging(std::string_view program, std::string_view level) {
  auto logger = spdlog::stderr_color_mt(std::string(program));
  logger->set_level(spdlog::level::from_str(std::string(level)));
  logger->set_pattern("[%Y-%m-%dT%H:%M:%S.%e] %n %l: %v");
  spdlog::set_default_logger(logger);
}

}  // namespace rota
