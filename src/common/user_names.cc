#include "common/user_names.h"

#include <grp.h>
#include <pwd.h>

#include <vector>

namespace rota {

std::string UserName(uint32_t uid) {
  passwd pw{};
  passwd* found = nullptr;
  std::vector<char> buf(16384);
  getpwuid_r(uid, &pw, buf.data(), buf.size(), &found);
  return found != nullptr ? std::string(pw.pw_name) : std::string();
}

std::string UserNameOrNumber(uint32_t uid) {
  std::string name = UserName(uid);
  return name.empty() ? std::to_string(uid) : name;
}

std::optional<UserRecord> UserByName(const std::string& name) {
  passwd pw{};
  passwd* found = nullptr;
  std::vector<char> buf(16384);
  if (getpwnam_r(name.c_str(), &pw, buf.data(), buf.size(), &found) != 0 || found == nullptr) {
    return std::nullopt;
  }
  return UserRecord{pw.pw_uid, pw.pw_gid, pw.pw_dir != nullptr ? pw.pw_dir : ""};
}

std::string GroupNameOrNumber(uint32_t gid) {
  group gr{};
  group* found = nullptr;
  std::vector<char> buf(16384);
  getgrgid_r(gid, &gr, buf.data(), buf.size(), &found);
  return found != nullptr ? std::string(gr.gr_name) : std::to_string(gid);
}

}  // namespace rota
