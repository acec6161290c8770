#pragma once

// The RPC server: accepts TCP connections, cuts requests out of each stream
// (frame.h) and hands them to one handler; answers go back through a
// Responder that any thread may call, at any later time.
//
// Connections are persistent and pipelined: a client may send many requests
// on one connection without waiting, and responses (tagged with the request
// id) go out in whatever order the handler answers them. A connection that
// starts a frame and does not finish it within the frame deadline is closed;
// one that sends a malformed or oversized frame is told why (when the frame's
// header allows) and closed. Other connections never wait on either.
//
// asio stays out of this header so that its users compile quickly.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "common/status.h"
#include "rpc/frame.h"

namespace rota::rpc {

struct ServerOptions {
  std::string address = "127.0.0.1";  // Numeric IPv4 or IPv6 address to listen on.
  uint16_t port = 0;                  // 0: the kernel picks one; see RpcServer::port().
  int io_threads = 2;
  FrameLimits limits;
  // A frame whose first byte has arrived must be complete within this.
  std::chrono::milliseconds frame_deadline{10'000};
  // Requests read but not yet answered (and written) per connection; reading
  // from that connection pauses at this many, so a client that floods requests
  // or never reads its responses holds bounded memory.
  size_t max_in_flight_per_connection = 1024;
};

struct RequestContext {
  uint16_t method = 0;
  uint64_t request_id = 0;
  std::string credential;  // As sent; verifying it is the handler's business.
  std::string peer;        // "address:port" of the client.
};

namespace internal {
class Connection;
}

// Sends the answer to one request. Copyable and cheap; may be called from any
// thread, now or later (the write is posted onto the connection's strand). Only
// the first call counts. If every copy is dropped unanswered, the client gets a
// kInternal error rather than waiting for its timeout. Calls after the
// connection closed, or after the server stopped, do nothing.
class Responder {
 public:
  Responder() = default;  // Answers nothing; for containers.

  // `status` 0 with a serialized response message, or a rota::StatusCode
  // number (WireStatus) with a UTF-8 error message.
  void operator()(uint16_t status, std::string body) const;
  // Shorthand for an error answer: (WireStatus(error.code()), error.message()).
  // REQUIRES: !error.ok().
  void Fail(const Status& error) const;

 private:
  friend class internal::Connection;
  struct State;
  explicit Responder(std::shared_ptr<State> state) : state_(std::move(state)) {}

  std::shared_ptr<State> state_;
};

// Runs on an io thread, once per request; requests from one connection are
// handed over one at a time, in arrival order. It must not block: hand the
// work off (keeping the Responder) and return. Exceptions it throws are
// answered as kInternal errors.
using RequestHandler =
    std::function<void(const RequestContext& context, std::string body, Responder respond)>;

class RpcServer {
 public:
  // Binds, listens and starts `options.io_threads` threads.
  // Errors: kUnavailable when the address cannot be bound.
  static Result<std::unique_ptr<RpcServer>> Start(ServerOptions options, RequestHandler handler);

  ~RpcServer();  // Stop().
  RpcServer(const RpcServer&) = delete;
  RpcServer& operator=(const RpcServer&) = delete;

  // The port actually bound (useful when options.port was 0).
  uint16_t port() const { return port_; }

  // Stops accepting, closes every connection and joins the io threads.
  // Responders called afterwards do nothing. Idempotent.
  // REQUIRES: not called from the handler (it runs on a thread this joins).
  void Stop();

 private:
  class Impl;
  RpcServer(std::unique_ptr<Impl> impl, uint16_t port);

  std::unique_ptr<Impl> impl_;
  const uint16_t port_;
};

}  // namespace rota::rpc
