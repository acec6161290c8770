#pragma once

// Logins of uids, from the passwd database (files, LDAP, ... as nsswitch.conf
// says). Thread-safe.

#include <cstdint>
#include <optional>
#include <string>

namespace rota {

// The login of `uid`; empty when the database has none.
std::string UserName(uint32_t uid);

// The login of `uid`, or the number as text when it has none (as Slurm's
// commands show an unknown user).
std::string UserNameOrNumber(uint32_t uid);

// A login's passwd entry: what the daemons need of a user named in a token or
// a request. nullopt when the database has none.
struct UserRecord {
  uint32_t uid = 0;
  uint32_t gid = 0;  // Primary group
  std::string home;
};
std::optional<UserRecord> UserByName(const std::string& name);

// The name of group `gid`, or the number as text when it has none.
std::string GroupNameOrNumber(uint32_t gid);

}  // namespace rota
