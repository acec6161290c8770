#include "model/job_state.h"

#include "common/strings.h"

namespace rota::model {
namespace {

struct StateNames {
  JobState state;
  std::string_view name;
  std::string_view compact;
};

constexpr StateNames kStates[] = {
    {wire::JOB_STATE_PENDING, "PENDING", "PD"},
    {wire::JOB_STATE_RUNNING, "RUNNING", "R"},
    {wire::JOB_STATE_SUSPENDED, "SUSPENDED", "S"},
    {wire::JOB_STATE_COMPLETING, "COMPLETING", "CG"},
    {wire::JOB_STATE_COMPLETED, "COMPLETED", "CD"},
    {wire::JOB_STATE_FAILED, "FAILED", "F"},
    {wire::JOB_STATE_CANCELLED, "CANCELLED", "CA"},
    {wire::JOB_STATE_TIMEOUT, "TIMEOUT", "TO"},
    {wire::JOB_STATE_NODE_FAIL, "NODE_FAIL", "NF"},
    {wire::JOB_STATE_PREEMPTED, "PREEMPTED", "PR"},
    {wire::JOB_STATE_OUT_OF_MEMORY, "OUT_OF_MEMORY", "OOM"},
    {wire::JOB_STATE_BOOT_FAIL, "BOOT_FAIL", "BF"},
    {wire::JOB_STATE_DEADLINE, "DEADLINE", "DL"},
    {wire::JOB_STATE_REQUEUED, "REQUEUED", "RQ"},
};

}  // namespace

std::string_view JobStateName(JobState s) {
  for (const StateNames& n : kStates) {
    if (n.state == s) return n.name;
  }
  return "UNKNOWN";
}

std::string_view JobStateCompactName(JobState s) {
  for (const StateNames& n : kStates) {
    if (n.state == s) return n.compact;
  }
  return "?";
}

bool ParseJobState(std::string_view text, JobState* out) {
  for (const StateNames& n : kStates) {
    if (EqualsIgnoreCase(text, n.name) || EqualsIgnoreCase(text, n.compact)) {
      *out = n.state;
      return true;
    }
  }
  return false;
}

bool IsFinished(JobState s) {
  switch (s) {
    case wire::JOB_STATE_PENDING:
    case wire::JOB_STATE_RUNNING:
    case wire::JOB_STATE_SUSPENDED:
    case wire::JOB_STATE_COMPLETING:
    case wire::JOB_STATE_REQUEUED:
      return false;
    default:
      return true;
  }
}

}  // namespace rota::model
