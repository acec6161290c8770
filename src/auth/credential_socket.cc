#include "auth/credential_socket.h"

#include <fmt/format.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "auth/sha256.h"

namespace rota::auth {
namespace {

// Closes the descriptor on every return path.
class Socket {
 public:
  Socket() : fd_(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) {}
  ~Socket() {
    if (fd_ >= 0) close(fd_);
  }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

CredentialSocketIssuer::CredentialSocketIssuer(std::string socket_path, std::string why_not_key,
                                               std::chrono::milliseconds timeout)
    : socket_path_(std::move(socket_path)),
      why_not_key_(std::move(why_not_key)),
      timeout_(timeout) {}

Result<std::string> CredentialSocketIssuer::Issue(std::string_view bound_bytes) {
  auto unavailable = [&](std::string_view what) {
    std::string message =
        fmt::format("auth/slurm: {} on the credential socket {}", what, socket_path_);
    if (!why_not_key_.empty()) {
      message = fmt::format(
          "{}; the key itself is not readable ({}). Is rotad or rota-authd "
          "running on this host?",
          message, why_not_key_);
    }
    return Status(StatusCode::kUnavailable, message);
  };

  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (socket_path_.empty() || socket_path_.size() >= sizeof(address.sun_path)) {
    return InvalidArgument(
        fmt::format("credential socket path \"{}\" is empty or too long", socket_path_));
  }
  std::memcpy(address.sun_path, socket_path_.data(), socket_path_.size());

  Socket sock;
  if (sock.get() < 0) return unavailable(fmt::format("socket(): {}", std::strerror(errno)));
  // A Unix socket's connect, send and receive all honour these.
  timeval tv{.tv_sec = static_cast<time_t>(timeout_.count() / 1000),
             .tv_usec = static_cast<suseconds_t>((timeout_.count() % 1000) * 1000)};
  setsockopt(sock.get(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(sock.get(), SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  while (connect(sock.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    if (errno == EINTR) continue;
    return unavailable(fmt::format("cannot connect ({})", std::strerror(errno)));
  }

  std::string request(kCredentialSocketMagic);
  const Sha256Digest digest = Sha256(bound_bytes);
  request.append(reinterpret_cast<const char*>(digest.data()), digest.size());
  std::string_view left = request;
  while (!left.empty()) {
    ssize_t n = send(sock.get(), left.data(), left.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return unavailable(fmt::format("cannot send ({})", std::strerror(errno)));
    left.remove_prefix(static_cast<size_t>(n));
  }

  // The answer is small and ends with the server's close.
  std::string answer;
  char buffer[512];
  while (answer.size() <= 3 + 0xffff) {
    ssize_t n = recv(sock.get(), buffer, sizeof buffer, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return unavailable(fmt::format("no answer ({})", std::strerror(errno)));
    if (n == 0) break;
    answer.append(buffer, static_cast<size_t>(n));
  }
  if (answer.size() < 3) return unavailable("the connection closed without an answer");
  const auto kind = static_cast<uint8_t>(answer[0]);
  const size_t length =
      static_cast<uint8_t>(answer[1]) | (size_t{static_cast<uint8_t>(answer[2])} << 8);
  if (answer.size() != 3 + length) {
    return Internal(fmt::format("malformed answer from the credential socket {}", socket_path_));
  }
  std::string payload = answer.substr(3);
  if (kind == kCredentialSocketAnswerCredential) return payload;
  if (kind == kCredentialSocketAnswerError) {
    return PermissionDenied(
        fmt::format("the credential socket {} refused: {}", socket_path_, payload));
  }
  return Internal(fmt::format("malformed answer from the credential socket {}", socket_path_));
}

}  // namespace rota::auth
