#include "cli/slurm_time.h"

#include <ctime>

namespace rota::cli {

std::string FormatSlurmTime(int64_t unix_secs, const char* unset) {
  if (unix_secs <= 0) return unset;
  time_t t = static_cast<time_t>(unix_secs);
  tm local{};
  localtime_r(&t, &local);
  char buf[32];
  strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &local);
  return buf;
}

}  // namespace rota::cli
