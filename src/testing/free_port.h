#pragma once

// A loopback port for a test's server to bind.

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <mutex>
#include <set>

namespace rota::testing {

// A port nobody listens on right now (the kernel's pick, released at once),
// and never one this process was given before: a test picks the controller's
// port and then the nodes' before the controller binds its own, and the kernel
// may hand the same free port out twice.
inline uint16_t FreeLoopbackPort() {
  static std::mutex mutex;
  static std::set<uint16_t> given;
  std::lock_guard lock(mutex);
  while (true) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    socklen_t len = sizeof addr;
    getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    close(fd);
    uint16_t port = ntohs(addr.sin_port);
    if (given.insert(port).second) return port;
  }
}

}  // namespace rota::testing
