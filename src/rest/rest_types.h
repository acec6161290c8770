#pragma once

// What every part of rotarestd shares: one HTTP request and its answer as
// plain values (the HTTP library stays inside http_server.cc), and the Backend
// through which a handler reaches the daemons as the requesting user.

#include <google/protobuf/message_lite.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "common/status.h"
#include "conf/cluster_config.h"

namespace rota::rest {

struct HttpRequest {
  std::string method;  // "GET", "POST", "DELETE", ...
  std::string path;    // Without the query string; percent-decoded.
  std::map<std::string, std::string> query;
  // Header names in lower case (HTTP names are case-insensitive).
  std::map<std::string, std::string> headers;
  std::string body;
  // The peer's uid when the request came over a Unix socket (SO_PEERCRED).
  std::optional<uint32_t> peer_uid;

  // A header's value, or "" when absent. `name` in lower case.
  std::string Header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
  }
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  // Extra headers (e.g. Cache-Control for the dashboard's files).
  std::map<std::string, std::string> headers;
};

// The daemons, reached with the credential of the user a request acts for.
// One Backend serves one request; it is not shared between threads.
class Backend {
 public:
  virtual ~Backend() = default;
  // rotactld: method ids of api/methods.h. The answer's serialized body, or the
  // controller's error (its message is meant for the user).
  virtual Result<std::string> CallController(uint16_t method,
                                             const google::protobuf::MessageLite& request) = 0;
  // rotadbd: method ids of api/dbd_methods.h. kFailedPrecondition when the
  // cluster keeps no accounting.
  virtual Result<std::string> CallAccounting(uint16_t method,
                                             const google::protobuf::MessageLite& request) = 0;
  // The user the request acts for.
  virtual uint32_t uid() const = 0;
  virtual const std::string& user_name() const = 0;
  virtual const conf::ClusterConfig& config() const = 0;
  // Unix seconds.
  virtual int64_t now() const = 0;
};

// Parses a daemon's answer into `response`: false when it does not parse.
template <typename Message>
Result<Message> ParseAnswer(const Result<std::string>& body) {
  if (!body.ok()) return body.status();
  Message m;
  if (!m.ParseFromString(*body)) {
    return Status(StatusCode::kInternal, "malformed answer from the daemon");
  }
  return m;
}

}  // namespace rota::rest
