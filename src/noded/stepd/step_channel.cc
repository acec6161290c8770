#include "noded/stepd/step_channel.h"

#include <google/protobuf/message_lite.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace rota::noded {
namespace {

Status WriteAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    ssize_t n = send(fd, data, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      return Status(StatusCode::kUnavailable, std::string("send: ") + std::strerror(errno));
    data += n;
    size -= static_cast<size_t>(n);
  }
  return Status::Ok();
}

Status ReadAll(int fd, char* data, size_t size, std::chrono::milliseconds timeout) {
  while (size > 0) {
    pollfd p{fd, POLLIN, 0};
    int ready = poll(&p, 1, timeout.count() < 0 ? -1 : static_cast<int>(timeout.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0)
      return Status(StatusCode::kUnavailable, "no answer from the step daemon in time");
    if (ready < 0) return Internal(std::string("poll: ") + std::strerror(errno));
    ssize_t n = read(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) return Status(StatusCode::kUnavailable, "the step daemon closed the connection");
    if (n < 0)
      return Status(StatusCode::kUnavailable, std::string("read: ") + std::strerror(errno));
    data += n;
    size -= static_cast<size_t>(n);
  }
  return Status::Ok();
}

Result<sockaddr_un> AddressOf(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof addr.sun_path) {
    return InvalidArgument("socket path too long: " + path);
  }
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  return addr;
}

}  // namespace

Status WriteStepMessage(int fd, const google::protobuf::MessageLite& message) {
  std::string body = message.SerializeAsString();
  if (body.size() > kMaxStepMessageBytes) return InvalidArgument("step message too large");
  uint32_t size = static_cast<uint32_t>(body.size());
  char header[4] = {static_cast<char>(size >> 24), static_cast<char>(size >> 16),
                    static_cast<char>(size >> 8), static_cast<char>(size)};
  ROTA_RETURN_IF_ERROR(WriteAll(fd, header, sizeof header));
  return WriteAll(fd, body.data(), body.size());
}

Status ReadStepMessage(int fd, google::protobuf::MessageLite& message,
                       std::chrono::milliseconds timeout) {
  unsigned char header[4];
  ROTA_RETURN_IF_ERROR(ReadAll(fd, reinterpret_cast<char*>(header), sizeof header, timeout));
  uint32_t size = (uint32_t{header[0]} << 24) | (uint32_t{header[1]} << 16) |
                  (uint32_t{header[2]} << 8) | uint32_t{header[3]};
  if (size > kMaxStepMessageBytes) return InvalidArgument("step message too large");
  // Grown as the bytes arrive, not by what the header claims: a peer that
  // announces 64 MiB and sends nothing more costs nothing.
  constexpr size_t kPiece = 64 << 10;
  std::string body;
  while (body.size() < size) {
    const size_t at = body.size();
    const size_t n = std::min<size_t>(kPiece, size - at);
    body.resize(at + n);  // Capacity doubles: linear in all.
    ROTA_RETURN_IF_ERROR(ReadAll(fd, body.data() + at, n, timeout));
  }
  if (!message.ParseFromString(body)) return InvalidArgument("malformed step message");
  return Status::Ok();
}

Result<int> ListenStepSocket(const std::string& path) {
  Result<sockaddr_un> addr = AddressOf(path);
  if (!addr.ok()) return addr.status();
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return IoError(std::string("socket: ") + std::strerror(errno));
  unlink(path.c_str());
  // Created 0600 from the start (umask), not chmod'ed afterwards: nobody else
  // may connect in between.
  mode_t old_mask = umask(0177);
  int bound = bind(fd, reinterpret_cast<const sockaddr*>(&*addr), sizeof *addr);
  int saved = errno;
  umask(old_mask);
  if (bound != 0 || listen(fd, 16) != 0) {
    if (bound == 0) saved = errno;
    close(fd);
    return IoError("cannot listen on " + path + ": " + std::strerror(saved));
  }
  return fd;
}

Result<wire::StepStatus> AskStepDaemon(const std::string& path, const wire::StepRequest& request,
                                       std::chrono::milliseconds timeout) {
  Result<sockaddr_un> addr = AddressOf(path);
  if (!addr.ok()) return addr.status();
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return IoError(std::string("socket: ") + std::strerror(errno));
  if (connect(fd, reinterpret_cast<const sockaddr*>(&*addr), sizeof *addr) != 0) {
    int saved = errno;
    close(fd);
    return Status(StatusCode::kUnavailable,
                  "no step daemon at " + path + ": " + std::strerror(saved));
  }
  wire::StepStatus answer;
  Status s = WriteStepMessage(fd, request);
  if (s.ok()) s = ReadStepMessage(fd, answer, timeout);
  close(fd);
  if (!s.ok()) return s;
  return answer;
}

}  // namespace rota::noded
