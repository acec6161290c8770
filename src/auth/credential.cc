#include "auth/credential.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <chrono>

#include "auth/credential_socket.h"
#include "auth/munge_auth.h"
#include "auth/none_auth.h"
#include "auth/slurm_key_auth.h"
#include "auth/slurm_key_file.h"

namespace rota::auth {
namespace {

Identity ProcessIdentity() {
  return Identity{.uid = static_cast<uint32_t>(geteuid()), .gid = static_cast<uint32_t>(getegid())};
}

Status UnknownAuthType(const AuthSettings& settings) {
  return InvalidArgument(fmt::format(
      "unknown AuthType \"{}\"; expected auth/munge, auth/slurm or auth/none", settings.auth_type));
}

Result<std::shared_ptr<const SlurmKey>> LoadConfiguredKey(const AuthSettings& settings,
                                                          int* open_errno = nullptr) {
  if (settings.key_path.empty()) {
    return InvalidArgument("auth/slurm needs the path of its key file (slurm.key)");
  }
  return LoadSlurmKey(settings.key_path, open_errno);
}

constexpr std::string_view kStaleMarker = "stale credential: ";
constexpr std::string_view kStartedAtMarker = "the daemon started at ";
constexpr std::string_view kSignAfterMarker = "sign again after ";

}  // namespace

int64_t SystemUnixNow() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string RpcBindingBytes(uint16_t method, std::string_view body) {
  std::string bytes;
  bytes.reserve(2 + body.size());
  bytes.push_back(static_cast<char>(method & 0xff));
  bytes.push_back(static_cast<char>(method >> 8));
  bytes.append(body);
  return bytes;
}

Status PermissionDenied(std::string why) {
  return Status(StatusCode::kPermissionDenied, std::move(why));
}

Status StaleCredential(int64_t issued_at, int64_t started_at) {
  return PermissionDenied(fmt::format(
      "{}issued at {} ms, but {}{} ms (or its clock stepped back to then) and cannot know "
      "whether it accepted it before; sign again (a clock seconds behind the daemon's makes its "
      "credentials stale for that long)",
      kStaleMarker, issued_at, kStartedAtMarker, started_at));
}

Status FutureCredential(int64_t issued_at, int64_t now, int64_t max_skew_s) {
  return PermissionDenied(fmt::format(
      "{}credential issued in the future (issued at {} ms, now {} ms): clocks differ by more "
      "than {} s (a clock stepped back, or the sender's runs ahead); {}{} ms",
      kStaleMarker, issued_at, now, max_skew_s, kSignAfterMarker, now));
}

Status AgedCredential(int64_t issued_at, int64_t now, int64_t ttl_s) {
  return PermissionDenied(fmt::format(
      "{}credential issued at {} is outside its time to live of {} s (now {}): a clock stepped "
      "forward while it was in flight, or the sender's runs behind; {}{} ms",
      kStaleMarker, issued_at, ttl_s, now, kSignAfterMarker, (now - ttl_s) * 1000));
}

bool IsStaleCredential(const Status& status, int64_t* started_at) {
  if (status.code() != StatusCode::kPermissionDenied) return false;
  const std::string& message = status.message();
  if (message.rfind(kStaleMarker, 0) != 0) return false;
  if (started_at != nullptr) {
    *started_at = INT64_MAX;
    for (std::string_view marker : {kStartedAtMarker, kSignAfterMarker}) {
      const size_t at = message.find(marker);
      if (at == std::string::npos) continue;
      const char* begin = message.data() + at + marker.size();
      std::from_chars(begin, message.data() + message.size(), *started_at);
      break;
    }
  }
  return true;
}

Result<std::unique_ptr<CredentialIssuer>> MakeIssuer(const AuthSettings& settings) {
  if (settings.auth_type == "auth/slurm") {
    int open_errno = 0;
    auto key = LoadConfiguredKey(settings, &open_errno);
    // An ordinary user may not read the key (rightly): the local credential
    // socket signs for them, with the identity the kernel vouches for.
    if (!key.ok() && open_errno == EACCES) {
      return std::unique_ptr<CredentialIssuer>(std::make_unique<CredentialSocketIssuer>(
          settings.credential_socket, key.status().message()));
    }
    if (!key.ok()) return key.status();
    return std::unique_ptr<CredentialIssuer>(
        std::make_unique<SlurmKeyIssuer>(std::move(key).value(), ProcessIdentity()));
  }
  if (settings.auth_type == "auth/munge") {
    return std::unique_ptr<CredentialIssuer>(std::make_unique<MungeIssuer>(settings.munge_socket));
  }
  if (settings.auth_type == "auth/none") {
    return std::unique_ptr<CredentialIssuer>(std::make_unique<NoneIssuer>(ProcessIdentity()));
  }
  return UnknownAuthType(settings);
}

Result<std::unique_ptr<CredentialVerifier>> MakeVerifier(const AuthSettings& settings) {
  if (settings.auth_type == "auth/slurm") {
    auto key = LoadConfiguredKey(settings);
    if (!key.ok()) return key.status();
    SlurmKeyVerifier::Options options;
    options.started_at_ms = SystemUnixMillis();
    return std::unique_ptr<CredentialVerifier>(
        std::make_unique<SlurmKeyVerifier>(std::move(key).value(), options));
  }
  if (settings.auth_type == "auth/munge") {
    return std::unique_ptr<CredentialVerifier>(
        std::make_unique<MungeVerifier>(settings.munge_socket));
  }
  if (settings.auth_type == "auth/none") {
    // The daemons that verify say loudly at start that nothing is checked; this
    // file stays free of logging so the commands need no logging library.
    return std::unique_ptr<CredentialVerifier>(std::make_unique<NoneVerifier>());
  }
  return UnknownAuthType(settings);
}

}  // namespace rota::auth
