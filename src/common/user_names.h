#pragma once

// Logins of uids, from the passwd database (files, LDAP, ... as nsswitch.conf
// says). Thread-safe.

#include <cstdint>
#include <string>

namespace rota {

// The login of `uid`; empty when the database has none.
std::string UserName(uint32_t uid);

// The login of `uid`, or the number as text when it has none (as Slurm's
// commands show an unknown user).
std::string UserNameOrNumber(uint32_t uid);

// The name of group `gid`, or the number as text when it has none.
std::string GroupNameOrNumber(uint32_t gid);

}  // namespace rota
