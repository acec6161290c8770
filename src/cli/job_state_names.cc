#include "cli/job_state_names.h"

#include <algorithm>
#include <array>

#include "common/strings.h"

namespace rota::cli {
namespace {

struct StateName {
  std::string_view full;
  std::string_view compact;
};

// Slurm 22.05's job states, in the order squeue lists them: the base states,
// then the flags a job carries beside one.
constexpr std::array<StateName, 24> kSqueueStates = {{
    {"PENDING", "PD"},    {"RUNNING", "R"},       {"SUSPENDED", "S"},     {"COMPLETED", "CD"},
    {"CANCELLED", "CA"},  {"FAILED", "F"},        {"TIMEOUT", "TO"},      {"NODE_FAIL", "NF"},
    {"PREEMPTED", "PR"},  {"BOOT_FAIL", "BF"},    {"DEADLINE", "DL"},     {"OUT_OF_MEMORY", "OOM"},
    {"COMPLETING", "CG"}, {"CONFIGURING", "CF"},  {"RESIZING", "RS"},     {"RESV_DEL_HOLD", "RD"},
    {"REQUEUED", "RQ"},   {"REQUEUE_FED", "RF"},  {"REQUEUE_HOLD", "RH"}, {"REVOKED", "RV"},
    {"SIGNALING", "SI"},  {"SPECIAL_EXIT", "SE"}, {"STAGE_OUT", "SO"},    {"STOPPED", "ST"},
}};

template <size_t N>
bool Named(const std::array<StateName, N>& states, std::string_view name) {
  return std::any_of(states.begin(), states.end(), [&](const StateName& s) {
    return EqualsIgnoreCase(name, s.full) || EqualsIgnoreCase(name, s.compact);
  });
}

}  // namespace

bool IsSqueueStateName(std::string_view name) {
  return EqualsIgnoreCase(name, "all") || Named(kSqueueStates, name);
}

std::string SqueueStateError(std::string_view name) {
  std::string valid;
  for (const StateName& s : kSqueueStates) {
    if (!valid.empty()) valid += ',';
    valid += s.full;
  }
  return "Invalid job state specified: " + std::string(name) +
         "\nValid job states include: " + valid;
}

bool IsSacctStateName(std::string_view name) { return Named(kSqueueStates, name); }

}  // namespace rota::cli
