#include "rpc/client.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace rota::rpc {
namespace {

using std::chrono::milliseconds;

Status Unavailable(std::string message) {
  return Status(StatusCode::kUnavailable, std::move(message));
}

// Milliseconds left until `deadline` for poll(); 0 once it has passed.
int PollTimeout(std::chrono::steady_clock::time_point deadline) {
  auto left = std::chrono::duration_cast<milliseconds>(deadline - std::chrono::steady_clock::now());
  // Round up so that poll does not wake a hair early and spin.
  return static_cast<int>(std::clamp<int64_t>(left.count() + 1, 0, 1 << 30));
}

// Waits until `fd` is ready for `events` or `deadline`; false on timeout.
Result<bool> WaitReady(int fd, short events, std::chrono::steady_clock::time_point deadline) {
  while (true) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    pollfd pfd{.fd = fd, .events = events, .revents = 0};
    int n = poll(&pfd, 1, PollTimeout(deadline));
    if (n > 0) return true;
    if (n < 0 && errno != EINTR) return Unavailable(fmt::format("poll: {}", std::strerror(errno)));
  }
}

// One non-blocking connect attempt to `address`, bounded by `deadline`.
// Returns the connected descriptor.
Result<int> ConnectOne(const addrinfo& address, std::chrono::steady_clock::time_point deadline) {
  int fd = socket(address.ai_family, address.ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                  address.ai_protocol);
  if (fd < 0) return Unavailable(fmt::format("socket: {}", std::strerror(errno)));
  auto fail = [fd](std::string why) -> Status {
    close(fd);
    return Unavailable(std::move(why));
  };
  if (connect(fd, address.ai_addr, address.ai_addrlen) != 0) {
    if (errno != EINPROGRESS) return fail(std::strerror(errno));
    Result<bool> ready = WaitReady(fd, POLLOUT, deadline);
    if (!ready.ok()) return fail(ready.status().message());
    if (!*ready) return fail("timed out");
    int error = 0;
    socklen_t length = sizeof(error);
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) != 0)
      return fail(std::strerror(errno));
    if (error != 0) return fail(std::strerror(error));
  }
  int one = 1;
  // Requests are small and each waits for its answer: no Nagle delay.
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  return fd;
}

}  // namespace

Status Response::ToStatus() const {
  if (ok()) return Status::Ok();
  return Status(StatusCodeFromWire(status), body);
}

RpcClient::RpcClient(FrameLimits limits) : limits_(limits) {}

RpcClient::~RpcClient() { Close(); }

void RpcClient::Close() {
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
  decoder_.reset();
  received_.clear();
}

bool RpcClient::connected() const {
  if (fd_ < 0) return false;
  if (!received_.empty()) return true;
  // A peek costs no state: end of stream, or a reset, means the server closed.
  char byte;
  const ssize_t n = recv(fd_, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  if (n == 0) return false;
  if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return false;
  return true;
}

Status RpcClient::Fail(Status why) {
  Close();
  return why;
}

Status RpcClient::Connect(const std::string& host, uint16_t port, milliseconds timeout) {
  Close();
  const auto deadline = Clock::now() + timeout;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* addresses = nullptr;
  const std::string service = std::to_string(port);
  int rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &addresses);
  if (rc != 0) {
    return NotFound(fmt::format("cannot resolve \"{}\": {}", host, gai_strerror(rc)));
  }
  std::string errors;
  for (addrinfo* address = addresses; address != nullptr; address = address->ai_next) {
    Result<int> fd = ConnectOne(*address, deadline);
    if (fd.ok()) {
      fd_ = *fd;
      break;
    }
    errors += (errors.empty() ? "" : "; ") + fd.status().message();
  }
  freeaddrinfo(addresses);
  if (fd_ < 0) {
    return Unavailable(fmt::format("cannot connect to {}:{}: {}", host, port, errors));
  }
  decoder_.emplace(limits_);
  return Status::Ok();
}

Result<uint64_t> RpcClient::Send(uint16_t method, std::string_view credential,
                                 std::string_view body, milliseconds timeout) {
  return SendUntil(method, credential, body, Clock::now() + timeout);
}

Result<uint64_t> RpcClient::SendUntil(uint16_t method, std::string_view credential,
                                      std::string_view body, Clock::time_point deadline) {
  if (fd_ < 0) return Unavailable("not connected");
  if (credential.size() > limits_.max_credential_bytes) {
    return OutOfRange(fmt::format("credential of {} bytes exceeds the limit of {}",
                                  credential.size(), limits_.max_credential_bytes));
  }
  if (body.size() > limits_.max_body_bytes) {
    return OutOfRange(fmt::format("request body of {} bytes exceeds the limit of {}", body.size(),
                                  limits_.max_body_bytes));
  }
  const uint64_t request_id = next_request_id_++;
  std::string frame;
  AppendRequestFrame(method, request_id, credential, body, &frame);
  ROTA_RETURN_IF_ERROR(WriteAll(frame, deadline));
  return request_id;
}

Result<ResponseFrame> RpcClient::Receive(milliseconds timeout) {
  return ReceiveUntil(Clock::now() + timeout);
}

Result<Response> RpcClient::Call(uint16_t method, std::string_view credential,
                                 std::string_view body, milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  Result<uint64_t> request_id = SendUntil(method, credential, body, deadline);
  if (!request_id.ok()) return request_id.status();
  while (true) {
    Result<ResponseFrame> frame = ReceiveUntil(deadline);
    if (!frame.ok()) return frame.status();
    if (frame->request_id == *request_id) {
      return Response{.status = frame->status, .body = std::move(frame->body)};
    }
    // The server refused our stream without knowing which request failed; the
    // connection is about to close. Report its reason rather than a bare EOF.
    if (frame->request_id == 0 && frame->status != 0) {
      return Fail(Unavailable("the server refused the connection: " + frame->body));
    }
  }
}

Status RpcClient::WriteAll(std::string_view bytes, Clock::time_point deadline) {
  while (!bytes.empty()) {
    ssize_t n = send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n > 0) {
      bytes.remove_prefix(static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      Result<bool> ready = WaitReady(fd_, POLLOUT, deadline);
      if (!ready.ok()) return Fail(ready.status());
      if (!*ready) return Fail(Unavailable("timed out sending a request"));
      continue;
    }
    return Fail(Unavailable(fmt::format("send failed: {}", std::strerror(errno))));
  }
  return Status::Ok();
}

Result<ResponseFrame> RpcClient::ReceiveUntil(Clock::time_point deadline) {
  while (received_.empty()) {
    if (fd_ < 0) return Unavailable("not connected");
    ssize_t n = recv(fd_, read_buffer_.data(), read_buffer_.size(), 0);
    if (n > 0) {
      std::vector<ResponseFrame> frames;
      Status decoded = decoder_->Feed(std::string_view(read_buffer_.data(), n), &frames);
      if (!decoded.ok()) {
        // The stream cannot be trusted past this point, nor the server sending it.
        return Fail(Status(decoded.code(), "malformed response: " + decoded.message()));
      }
      for (ResponseFrame& frame : frames) received_.push_back(std::move(frame));
      continue;
    }
    if (n == 0) return Fail(Unavailable("the server closed the connection"));
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      Result<bool> ready = WaitReady(fd_, POLLIN, deadline);
      if (!ready.ok()) return Fail(ready.status());
      if (!*ready) return Fail(Unavailable("timed out waiting for the server's response"));
      continue;
    }
    return Fail(Unavailable(fmt::format("receive failed: {}", std::strerror(errno))));
  }
  ResponseFrame frame = std::move(received_.front());
  received_.pop_front();
  return frame;
}

}  // namespace rota::rpc
