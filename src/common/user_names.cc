#include "common/user_names.h"

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

}  // namespace rota
