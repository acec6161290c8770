#pragma once
// A minimal HTTP/1.1 client for the REST tests: one request per connection
// (Connection: close), over loopback TCP or a Unix socket, the answer read to
// the end. Enough to speak to rotarestd; no chunked bodies (it sends none).

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

namespace rota::testing {

struct HttpAnswer {
  int status = 0;                              // 0: no answer (connect failed, or closed early)
  std::map<std::string, std::string> headers;  // Names in lower case
  std::string body;
  nlohmann::json Json() const { return nlohmann::json::parse(body, nullptr, false); }
};

// Where to send: a loopback port, or a Unix socket path.
struct HttpTarget {
  uint16_t port = 0;
  std::string unix_path;
};

inline int ConnectTo(const HttpTarget& target) {
  if (!target.unix_path.empty()) {
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un sa{};
    sa.sun_family = AF_UNIX;
    std::strncpy(sa.sun_path, target.unix_path.c_str(), sizeof sa.sun_path - 1);
    if (connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) {
      close(fd);
      return -1;
    }
    return fd;
  }
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(target.port);
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

inline HttpAnswer ParseHttpAnswer(const std::string& raw) {
  HttpAnswer a;
  const size_t end = raw.find("\r\n\r\n");
  if (end == std::string::npos || raw.compare(0, 5, "HTTP/") != 0) return a;
  a.status = std::atoi(raw.c_str() + raw.find(' ') + 1);
  size_t line = raw.find("\r\n") + 2;
  while (line < end) {
    size_t next = raw.find("\r\n", line);
    std::string header = raw.substr(line, next - line);
    size_t colon = header.find(':');
    if (colon != std::string::npos) {
      std::string name = header.substr(0, colon);
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      size_t v = header.find_first_not_of(' ', colon + 1);
      a.headers[name] = v == std::string::npos ? "" : header.substr(v);
    }
    line = next + 2;
  }
  a.body = raw.substr(end + 4);
  return a;
}

// Sends `method path` with `headers` ("Name: value" lines, no CRLF) and `body`.
inline HttpAnswer HttpCall(const HttpTarget& target, const std::string& method,
                           const std::string& path,
                           const std::map<std::string, std::string>& headers = {},
                           const std::string& body = "") {
  int fd = ConnectTo(target);
  if (fd < 0) return {};
  std::string request =
      method + " " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n";
  for (const auto& [name, value] : headers) request += name + ": " + value + "\r\n";
  if (!body.empty() || method == "POST") {
    request +=
        "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
  }
  request += "\r\n" + body;
  size_t sent = 0;
  while (sent < request.size()) {
    ssize_t n = send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;
    sent += static_cast<size_t>(n);
  }
  std::string raw;
  char buffer[65536];
  ssize_t n;
  while ((n = recv(fd, buffer, sizeof buffer, 0)) > 0) raw.append(buffer, static_cast<size_t>(n));
  close(fd);
  return ParseHttpAnswer(raw);
}

}  // namespace rota::testing
