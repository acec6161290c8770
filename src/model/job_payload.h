#pragma once

// A job's script and environment, packed for keeping: serialized and deflated.
// An environment of 1.5 KB in 30 strings becomes one allocation of ~600 bytes,
// which is most of what a pending job costs the controller in memory.

#include <string>
#include <string_view>

#include "common/status.h"
#include "rota.pb.h"

namespace rota::model {

// Packs `script` and `environment` (other fields are ignored).
std::string PackPayload(const wire::JobPayload& payload);
// The script and environment back, with `job_id` set. Corruption on bad input.
Result<wire::JobPayload> UnpackPayload(uint32_t job_id, std::string_view packed);

}  // namespace rota::model
