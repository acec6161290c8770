#pragma once

// Job states as Slurm names them: the long form (squeue %T, scontrol
// JobState=) and the compact form (squeue %t).

#include <string_view>

#include "rota.pb.h"

namespace rota::model {

using wire::JobState;

std::string_view JobStateName(JobState s);         // "PENDING"
std::string_view JobStateCompactName(JobState s);  // "PD"
// Parses either form, case-insensitive; false when unknown.
bool ParseJobState(std::string_view text, JobState* out);
// A job in a final state holds no resources and will not run again.
bool IsFinished(JobState s);

}  // namespace rota::model
