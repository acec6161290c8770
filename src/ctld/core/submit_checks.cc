#include "ctld/core/submit_checks.h"

namespace rota::ctld {

// What Slurm answers for a string field over its bound, script included.
constexpr char kTooLong[] = "Pathname of a file, directory or other parameter too long";

uint64_t EnvironmentBytes(const wire::JobSpec& spec) {
  uint64_t bytes = 0;
  for (const std::string& entry : spec.environment()) bytes += entry.size() + 1;  // NUL
  return bytes;
}

Status CheckSubmitSizes(uint64_t script_bytes, uint64_t environment_bytes,
                        uint64_t max_script_size) {
  if (script_bytes > max_script_size || environment_bytes > max_script_size) {
    return InvalidArgument(kTooLong);
  }
  return Status::Ok();
}

Status CheckSubmitFields(const wire::JobSpec& spec, bool privileged, int64_t now) {
  const int64_t nice = spec.nice();
  if (nice < -kMaxNice || nice > kMaxNice) return InvalidArgument("Invalid nice value");
  if (nice < 0 && !privileged) {
    return Status(StatusCode::kPermissionDenied, "Access/permission denied");
  }
  // --priority is for operators and administrators only.
  if (spec.has_requested_priority() && !privileged) {
    return Status(StatusCode::kPermissionDenied, "Access/permission denied");
  }
  if (spec.deadline() > 0 && spec.deadline() <= now) {
    return InvalidArgument("Invalid time specified");
  }
  return Status::Ok();
}

}  // namespace rota::ctld
