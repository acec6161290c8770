#pragma once

// The submitting command's resource limits (PropagateResourceLimits), as the
// job's or step's request carries them, turned into what a task's process
// sets for itself (job_process.h SoftLimit).

#include <google/protobuf/repeated_ptr_field.h>

#include <vector>

#include "noded/stepd/job_process.h"
#include "rota.pb.h"

namespace rota::noded {

// Names rotad does not know are skipped (a newer command's).
std::vector<SoftLimit> SoftLimitsFrom(
    const google::protobuf::RepeatedPtrField<wire::ResourceLimit>& sent);

}  // namespace rota::noded
