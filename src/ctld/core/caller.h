#pragma once

// Who sent a request, as the server established it from the credential.

#include <cstdint>
#include <string>

namespace rota::ctld {

struct Caller {
  uint32_t uid = 0;
  uint32_t gid = 0;
  std::string user;   // Name for uid (or the number when unknown)
  std::string group;  // Name for gid
  // root or SlurmUser: may act on every job and node. (Operator and admin
  // levels from accounting come later.)
  bool privileged = false;
};

}  // namespace rota::ctld
