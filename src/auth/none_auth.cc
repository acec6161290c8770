#include "auth/none_auth.h"

#include <fmt/format.h>

#include <charconv>

namespace rota::auth {
namespace {

constexpr std::string_view kPrefix = "none:";

// A whole decimal uint32, nothing else.
bool ParseId(std::string_view text, uint32_t* out) {
  if (text.empty()) return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size();
}

}  // namespace

NoneIssuer::NoneIssuer(Identity claimed) : claimed_(claimed) {}

Result<std::string> NoneIssuer::Issue(std::string_view /*bound_bytes*/) {
  return fmt::format("{}{}:{}", kPrefix, claimed_.uid, claimed_.gid);
}

Result<Identity> NoneVerifier::Verify(std::string_view credential, std::string_view /*bound_bytes*/,
                                      int64_t /*now_unix*/) {
  if (!credential.starts_with(kPrefix)) {
    return PermissionDenied("malformed credential: not an auth/none credential");
  }
  std::string_view ids = credential.substr(kPrefix.size());
  const size_t colon = ids.find(':');
  Identity identity;
  if (colon == std::string_view::npos || !ParseId(ids.substr(0, colon), &identity.uid) ||
      !ParseId(ids.substr(colon + 1), &identity.gid)) {
    return PermissionDenied("malformed credential: expected none:<uid>:<gid>");
  }
  return identity;
}

Status NoneVerifier::Screen(std::string_view credential, int64_t now_unix) {
  Result<Identity> identity = Verify(credential, "", now_unix);
  return identity.ok() ? Status::Ok() : identity.status();
}

}  // namespace rota::auth
