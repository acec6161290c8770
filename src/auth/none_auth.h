#pragma once

// auth/none: FOR TESTS ONLY. The credential is the text "none:<uid>:<gid>",
// unsigned and unbound: anyone can claim to be anyone, root included. It exists
// so unit and integration tests can act as several users without a key or a
// munged. Never configure it on a real cluster; the controller logs loudly
// when it is in use.

#include <string>
#include <string_view>

#include "auth/credential.h"

namespace rota::auth {

class NoneIssuer final : public CredentialIssuer {
 public:
  // Every credential claims `claimed`.
  explicit NoneIssuer(Identity claimed);

  Result<std::string> Issue(std::string_view bound_bytes) override;

 private:
  const Identity claimed_;
};

class NoneVerifier final : public CredentialVerifier {
 public:
  // Believes any well-formed credential; checks neither binding nor time.
  Result<Identity> Verify(std::string_view credential, std::string_view bound_bytes,
                          int64_t now_unix) override;
  // As Verify: the form only.
  Status Screen(std::string_view credential, int64_t now_unix) override;
};

}  // namespace rota::auth
