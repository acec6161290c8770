#pragma once

// Test support: plain TCP endpoints on 127.0.0.1 that misbehave on purpose
// (half frames, garbage, silence), to test the server and client against.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace rota::rpc::testing {

// A connected socket to 127.0.0.1:port; closed by the destructor.
class RawConnection {
 public:
  explicit RawConnection(uint16_t port) : RawConnection(port, Options{}) {}

  struct Options {
    // Local address to connect from (any 127.x.y.z works on loopback), so that
    // a test can be several peers.
    const char* source_address = nullptr;
    int receive_buffer_bytes = 0;  // SO_RCVBUF before connecting; 0: the default.
  };
  RawConnection(uint16_t port, Options options)
      : fd_(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    if (fd_ >= 0 && options.receive_buffer_bytes > 0) {
      setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &options.receive_buffer_bytes,
                 sizeof(options.receive_buffer_bytes));
    }
    if (fd_ >= 0 && options.source_address != nullptr) {
      sockaddr_in source{};
      source.sin_family = AF_INET;
      inet_pton(AF_INET, options.source_address, &source.sin_addr);
      if (bind(fd_, reinterpret_cast<sockaddr*>(&source), sizeof(source)) != 0) {
        close(fd_);
        throw std::runtime_error("cannot bind to the source address");
      }
    }
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd_ < 0 || connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
      if (fd_ >= 0) close(fd_);
      throw std::runtime_error("cannot connect to 127.0.0.1");
    }
  }
  explicit RawConnection(int connected_fd) : fd_(connected_fd) {}
  ~RawConnection() {
    if (fd_ >= 0) close(fd_);
  }
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  bool Send(std::string_view bytes) {
    while (!bytes.empty()) {
      ssize_t n = send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      bytes.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }

  struct ReadResult {
    std::string bytes;
    bool closed_by_peer = false;  // EOF or reset seen before the timeout.
  };

  // Reads until the peer closes or `timeout` passes.
  ReadResult ReadUntilClosed(std::chrono::milliseconds timeout) {
    ReadResult result;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    char buffer[4096];
    while (true) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return result;
      pollfd pfd{.fd = fd_, .events = POLLIN, .revents = 0};
      if (poll(&pfd, 1, static_cast<int>(left.count())) <= 0) continue;
      ssize_t n = recv(fd_, buffer, sizeof(buffer), 0);
      if (n <= 0) {
        result.closed_by_peer = true;
        return result;
      }
      result.bytes.append(buffer, static_cast<size_t>(n));
    }
  }

 private:
  int fd_;
};

// A listening socket on 127.0.0.1 (kernel-chosen port) that accepts on demand.
class RawListener {
 public:
  RawListener() : fd_(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof(address);
    if (fd_ < 0 || bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
        listen(fd_, 16) != 0 ||
        getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
      throw std::runtime_error("cannot listen on 127.0.0.1");
    }
    port_ = ntohs(address.sin_port);
  }
  ~RawListener() { close(fd_); }
  RawListener(const RawListener&) = delete;
  RawListener& operator=(const RawListener&) = delete;

  uint16_t port() const { return port_; }

  // Blocks until a client connects.
  int Accept() { return accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC); }

 private:
  int fd_;
  uint16_t port_ = 0;
};

}  // namespace rota::rpc::testing
