#include "noded/container/user_process.h"

namespace rota::noded::container {

CapturedRun RunCapturedAs(const std::vector<std::string>& argv,
                          const std::vector<std::string>& environment, const UserIdentity& user,
                          std::chrono::milliseconds timeout) {
  const CapturedIdentity as{user.uid, user.gid, user.groups};
  return RunCaptured(argv, environment, timeout, &as);
}

}  // namespace rota::noded::container
