#pragma once

// An ordinary user made (useradd) for a test and removed after it, pass or
// fail, for the tests that check what one user may do to another's work.

#include <pwd.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "tests/integration/controller_process.h"

namespace rota::testing {

class TestUser {
 public:
  // The name is `prefix`, `tag` and this process's id: tests that run at the
  // same time (ctest -j) never share a user.
  TestUser(const std::string& prefix, const std::string& tag)
      : name_(prefix + tag + std::to_string(getpid() % 100000)) {
    made_ = std::system(("useradd -M -N -s /bin/sh " + name_ + " 2>/dev/null").c_str()) == 0;
    if (passwd* pw = getpwnam(name_.c_str()); made_ && pw != nullptr) {
      uid_ = pw->pw_uid;
      gid_ = pw->pw_gid;
    }
  }
  ~TestUser() {
    if (made_) std::system(("userdel " + name_ + " 2>/dev/null").c_str());
  }
  TestUser(const TestUser&) = delete;
  TestUser& operator=(const TestUser&) = delete;

  bool ok() const { return made_ && uid_ != 0; }
  const std::string& name() const { return name_; }
  uid_t uid() const { return uid_; }
  gid_t gid() const { return gid_; }
  // The shell line that runs `command_line` (a built command and its
  // arguments, without single quotes) as this user against `conf`.
  std::string Line(const std::string& conf, const std::string& command_line) const {
    return "su -s /bin/sh " + name_ + " -c 'SLURM_CONF=" + conf + " " + BinDir() + "/" +
           command_line + "'";
  }

 private:
  std::string name_;
  bool made_ = false;
  uid_t uid_ = 0;
  gid_t gid_ = 0;
};

}  // namespace rota::testing
