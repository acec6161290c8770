#include "auth/munge_auth.h"

#include <fmt/format.h>
#include <munge.h>
#include <openssl/crypto.h>

#include <cstdlib>
#include <optional>
#include <utility>

#include "auth/sha256.h"

namespace rota::auth {
namespace {

// One munge context per call, destroyed on every return path.
class MungeContext {
 public:
  MungeContext() : ctx_(munge_ctx_create()) {}
  ~MungeContext() {
    if (ctx_ != nullptr) munge_ctx_destroy(ctx_);
  }
  MungeContext(const MungeContext&) = delete;
  MungeContext& operator=(const MungeContext&) = delete;

  // Points the context at `socket_path` (unless empty).
  Status Init(const std::string& socket_path) {
    if (ctx_ == nullptr) return Internal("auth/munge: cannot allocate a munge context");
    if (!socket_path.empty()) {
      munge_err_t err = munge_ctx_set(ctx_, MUNGE_OPT_SOCKET, socket_path.c_str());
      if (err != EMUNGE_SUCCESS) {
        return Internal(
            fmt::format("auth/munge: cannot use socket {}: {}", socket_path, munge_strerror(err)));
      }
    }
    return Status::Ok();
  }

  munge_ctx_t get() const { return ctx_; }

  // The most detailed message munge offers for `err`.
  std::string Explain(munge_err_t err) const {
    const char* detail = ctx_ != nullptr ? munge_ctx_strerror(ctx_) : nullptr;
    return detail != nullptr ? detail : munge_strerror(err);
  }

 private:
  munge_ctx_t ctx_;
};

// Frees memory libmunge allocated for us.
struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

bool IsDaemonUnreachable(munge_err_t err) { return err == EMUNGE_SOCKET || err == EMUNGE_TIMEOUT; }

}  // namespace

MungeIssuer::MungeIssuer(std::string socket_path) : socket_path_(std::move(socket_path)) {}

Result<std::string> MungeIssuer::Issue(std::string_view bound_bytes) {
  MungeContext ctx;
  ROTA_RETURN_IF_ERROR(ctx.Init(socket_path_));
  const Sha256Digest digest = Sha256(bound_bytes);
  char* raw = nullptr;
  munge_err_t err = munge_encode(&raw, ctx.get(), digest.data(), static_cast<int>(digest.size()));
  std::unique_ptr<char, FreeDeleter> credential(raw);
  if (err != EMUNGE_SUCCESS) {
    const StatusCode code =
        IsDaemonUnreachable(err) ? StatusCode::kUnavailable : StatusCode::kInternal;
    return Status(code,
                  fmt::format("auth/munge: cannot create a credential: {}", ctx.Explain(err)));
  }
  return std::string(credential.get());
}

MungeVerifier::MungeVerifier(std::string socket_path, size_t max_screened)
    : socket_path_(std::move(socket_path)), max_screened_(max_screened) {}

Result<MungeVerifier::Decoded> MungeVerifier::Decode(std::string_view credential) {
  // munge_decode reads a C string, so an embedded NUL would hide a suffix.
  if (credential.empty() || credential.find('\0') != std::string_view::npos) {
    return PermissionDenied("malformed credential: not a munge credential string");
  }
  MungeContext ctx;
  ROTA_RETURN_IF_ERROR(ctx.Init(socket_path_));
  const std::string text(credential);
  void* raw_payload = nullptr;
  int payload_length = 0;
  uid_t uid = 0;
  gid_t gid = 0;
  munge_err_t err =
      munge_decode(text.c_str(), ctx.get(), &raw_payload, &payload_length, &uid, &gid);
  // Some errors still allocate the payload.
  std::unique_ptr<void, FreeDeleter> payload(raw_payload);
  switch (err) {
    case EMUNGE_SUCCESS:
      break;
    case EMUNGE_CRED_EXPIRED:
      return PermissionDenied("expired credential (munge: " + ctx.Explain(err) + ")");
    case EMUNGE_CRED_REWOUND:
      return PermissionDenied(
          "credential issued in the future: clocks differ (munge: " + ctx.Explain(err) + ")");
    case EMUNGE_CRED_REPLAYED:
      return PermissionDenied("replayed credential (munge: " + ctx.Explain(err) + ")");
    case EMUNGE_SOCKET:
    case EMUNGE_TIMEOUT:
      return Status(StatusCode::kUnavailable,
                    "auth/munge: cannot reach munged to check a credential: " + ctx.Explain(err));
    default:
      return PermissionDenied("malformed or forged credential (munge: " + ctx.Explain(err) + ")");
  }
  Decoded decoded;
  decoded.identity = Identity{.uid = static_cast<uint32_t>(uid), .gid = static_cast<uint32_t>(gid)};
  if (payload != nullptr && payload_length > 0) {
    decoded.payload.assign(static_cast<const char*>(payload.get()),
                           static_cast<size_t>(payload_length));
  }
  time_t encoded_at = 0;
  int ttl = 0;
  if (munge_ctx_get(ctx.get(), MUNGE_OPT_ENCODE_TIME, &encoded_at) != EMUNGE_SUCCESS ||
      munge_ctx_get(ctx.get(), MUNGE_OPT_TTL, &ttl) != EMUNGE_SUCCESS) {
    encoded_at = 0;
    ttl = 0;
  }
  decoded.expires_at = static_cast<int64_t>(encoded_at) + ttl;
  return decoded;
}

Result<Identity> MungeVerifier::Verify(std::string_view credential, std::string_view bound_bytes,
                                       int64_t /*now_unix: munged keeps time*/) {
  std::optional<Decoded> decoded;
  {
    // Screened already: munged has spent it, so it is taken from here, once.
    std::lock_guard lock(mutex_);
    auto it = screened_.find(credential);
    if (it != screened_.end()) {
      decoded = std::move(it->second);
      screened_.erase(it);
    }
  }
  if (!decoded) {
    Result<Decoded> fresh = Decode(credential);
    if (!fresh.ok()) return fresh.status();
    decoded = std::move(fresh).value();
  }
  const Sha256Digest digest = Sha256(bound_bytes);
  if (decoded->payload.size() != digest.size() ||
      CRYPTO_memcmp(decoded->payload.data(), digest.data(), digest.size()) != 0) {
    return PermissionDenied(
        "digest mismatch: credential was issued for a different request (method or body)");
  }
  return decoded->identity;
}

Status MungeVerifier::Screen(std::string_view credential, int64_t now_unix) {
  // munge credentials are a few hundred bytes of base64 between "MUNGE:" and ":".
  constexpr size_t kMaxMungeCredential = 4096;
  if (credential.size() < 8 || credential.size() > kMaxMungeCredential ||
      !credential.starts_with("MUNGE:") || !credential.ends_with(":") ||
      credential.find('\0') != std::string_view::npos) {
    return PermissionDenied("malformed credential: not a munge credential string");
  }
  {
    std::lock_guard lock(mutex_);
    std::erase_if(screened_, [&](const auto& entry) { return entry.second.expires_at < now_unix; });
    if (screened_.size() >= max_screened_) {
      return Status(StatusCode::kUnavailable,
                    fmt::format("auth/munge: {} credentials are awaiting their requests' bodies; "
                                "retry later",
                                screened_.size()));
    }
  }
  Result<Decoded> decoded = Decode(credential);
  if (!decoded.ok()) return decoded.status();
  std::lock_guard lock(mutex_);
  screened_.emplace(std::string(credential), std::move(decoded).value());
  return Status::Ok();
}

}  // namespace rota::auth
