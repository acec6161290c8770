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
// Nothing a peer can do without a credential holds much: connections are
// capped in total and per peer address; one that sends no complete,
// credential-screened request soon after connecting, or then stays idle, is
// closed; a request's body is read only after its header and credential pass
// the screen and its size the method's limit; and a connection's reading pauses
// while the answers queued for it exceed a byte budget.
//
// asio stays out of this header so that its users compile quickly.

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "common/status.h"
#include "rpc/frame.h"

namespace rota::rpc {

// The largest request body accepted for each method; methods not listed get
// `other`. Either way FrameLimits::max_body_bytes bounds every frame too.
struct MethodBodyLimits {
  std::map<uint16_t, uint32_t> by_method;
  uint32_t other = UINT32_MAX;

  uint32_t For(uint16_t method) const {
    auto it = by_method.find(method);
    return it == by_method.end() ? other : it->second;
  }
};

// Checks a request's credential before its body is read, without the body
// (so without the binding to it, which the handler still verifies). Called on
// an io thread; must be quick and thread-safe. A refusal (its Status goes back
// to the peer) closes the connection. `peer` is "address:port".
using CredentialScreen =
    std::function<Status(uint16_t method, std::string_view credential, std::string_view peer)>;

struct ServerOptions {
  std::string address = "127.0.0.1";  // Numeric IPv4 or IPv6 address to listen on.
  uint16_t port = 0;                  // 0: the kernel picks one; see RpcServer::port().
  int io_threads = 2;
  FrameLimits limits;
  MethodBodyLimits body_limits;
  // Null: every credential passes to the handler unscreened (tests, and
  // servers whose handlers need no credential).
  CredentialScreen screen_credential;
  // A frame whose first byte has arrived must be complete within this.
  std::chrono::milliseconds frame_deadline{10'000};
  // A connection must complete a request whose credential passed the screen
  // within this of connecting, or it is closed.
  std::chrono::milliseconds unauthenticated_timeout{10'000};
  // A connection with no request in progress, none unanswered and nothing
  // being written is closed after this long. A client whose answers wait
  // unread this long is closed too.
  std::chrono::milliseconds idle_timeout{60'000};
  // Open connections in all; more are accepted and closed at once. 0: sized
  // from RLIMIT_NOFILE at Start (DefaultMaxConnections), leaving descriptors
  // for the daemon's own files.
  size_t max_connections = 0;
  // Open connections from one peer address (IP, any port).
  size_t max_connections_per_peer = 256;
  // Requests handed to the handler but not yet answered (and written) per
  // connection; reading from that connection pauses at this many.
  size_t max_in_flight_per_connection = 64;
  // Bytes of answers queued for one connection and not yet written; handing
  // its requests to the handler, and reading more, pause above this. So a
  // client that never reads holds at most this plus the answers to the
  // requests already handed over (at most max_in_flight_per_connection).
  size_t max_queued_output_bytes_per_connection = 16u << 20;
  // Bytes of answers queued on all connections together; above this, every
  // connection with answers still unwritten pauses as above, while those
  // whose answers are all written (clients that read) go on.
  size_t max_queued_output_bytes = 256u << 20;
};

// The peer ("address:port") whose request this thread is handing to the
// handler right now, or "" outside a handler call. For log lines written below
// the handler that cannot be told the peer (protobuf's decoding errors).
std::string_view PeerBeingHandled();

// Raises this process's RLIMIT_NOFILE soft limit to its hard limit (daemons
// call it at start) and returns the soft limit now in force.
uint64_t RaiseDescriptorLimit();

// The total connection cap for a process whose descriptor limit is
// `descriptor_limit`: a quarter of it (at least 256) stays in reserve for the
// daemon's logs, state, outbox, job files and outgoing connections, and the
// cap is at most 16,384.
size_t DefaultMaxConnections(uint64_t descriptor_limit);

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

  // The total connection cap in force (options.max_connections, or its default).
  size_t max_connections() const;
  // Connections open now.
  size_t open_connections() const;
  // Bytes of answers queued on all connections, not yet written (for tests and
  // diagnostics).
  size_t queued_output_bytes() const;
  // Connections refused at accept because a cap was reached, since Start.
  uint64_t refused_connections() const;

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
