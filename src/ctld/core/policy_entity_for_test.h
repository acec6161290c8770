#pragma once

// Tests' way to write the accounting policy rotadbd sends the controller: one
// sacctmgr entity (account, user, assoc, qos) with its fields. Test-only.

#include <map>
#include <string>

#include "policy.pb.h"

namespace rota::ctld::testing {

inline void AddPolicyEntity(wire::PolicyState& state, const std::string& kind,
                            const std::string& name,
                            const std::map<std::string, std::string>& fields = {}) {
  wire::PolicyEntity* e = state.add_entities();
  e->set_kind(kind);
  e->set_name(name);
  for (const auto& [k, v] : fields) (*e->mutable_fields())[k] = v;
}

}  // namespace rota::ctld::testing
