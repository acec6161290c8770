#pragma once

// The blocking RPC client, for short-lived command-line processes (sbatch,
// squeue, ...) and load generators. Plain POSIX sockets, no asio and no
// threads, so a process that makes one call starts fast.
//
//   RpcClient client;
//   ROTA_RETURN_IF_ERROR(client.Connect("127.0.0.1", 6817, 5s));
//   Result<Response> answer = client.Call(method, credential, body, 10s);
//
// Pipelining (load generators): Send() several requests, then Receive() their
// responses, which may come back in any order.
//
// Any transport failure (timeout, reset, malformed frame) closes the
// connection, since the stream's position is then unknown; Connect() again to
// retry. An error answer from the server is not a transport failure: it comes
// back as a Response with status != 0 and leaves the connection usable.
// Not thread-safe: one client per thread.

#include <chrono>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "rpc/frame.h"

namespace rota::rpc {

struct Response {
  uint16_t status = 0;  // 0: OK; else a rota::StatusCode number (StatusCodeFromWire).
  std::string body;     // Response message, or the server's error message.

  bool ok() const { return status == 0; }
  // OK, or the server's error as a Status.
  Status ToStatus() const;
};

class RpcClient {
 public:
  explicit RpcClient(FrameLimits limits = {});
  ~RpcClient();  // Close().
  RpcClient(const RpcClient&) = delete;
  RpcClient& operator=(const RpcClient&) = delete;

  // Connects (TCP_NODELAY) to `host`:`port`, trying each address `host`
  // resolves to, all within `timeout`. Closes any previous connection first.
  // Name resolution (getaddrinfo) itself is not bounded by `timeout`; numeric
  // addresses and /etc/hosts names resolve without waiting.
  // Errors: kUnavailable (refused, unreachable, timed out), kNotFound (host).
  Status Connect(const std::string& host, uint16_t port, std::chrono::milliseconds timeout);

  // False once the connection is closed, on either side: a server closes
  // connections idle past its idle timeout, and callers that reconnect when
  // !connected() then do so instead of failing on a dead socket.
  bool connected() const;
  void Close();

  // Sends one request and waits for its response, within `timeout` overall.
  // Responses to other request ids (a pipelined Send, an earlier call) are
  // discarded. Errors: kUnavailable when not connected, on timeout or when the
  // server closes; kOutOfRange when the request exceeds the frame limits;
  // kInvalidArgument for a malformed response.
  Result<Response> Call(uint16_t method, std::string_view credential, std::string_view body,
                        std::chrono::milliseconds timeout);

  // Sends one request without waiting; returns its request id.
  Result<uint64_t> Send(uint16_t method, std::string_view credential, std::string_view body,
                        std::chrono::milliseconds timeout);
  // The next response to arrive, whichever request it answers.
  Result<ResponseFrame> Receive(std::chrono::milliseconds timeout);

 private:
  using Clock = std::chrono::steady_clock;

  Result<uint64_t> SendUntil(uint16_t method, std::string_view credential, std::string_view body,
                             Clock::time_point deadline);
  Status WriteAll(std::string_view bytes, Clock::time_point deadline);
  Result<ResponseFrame> ReceiveUntil(Clock::time_point deadline);
  // Closes and returns `why`: every transport failure leaves the client closed.
  Status Fail(Status why);

  const FrameLimits limits_;
  int fd_ = -1;
  uint64_t next_request_id_ = 1;
  std::optional<ResponseDecoder> decoder_;  // Fresh for each connection.
  std::deque<ResponseFrame> received_;      // Decoded, not yet returned.
  ReadChunk read_buffer_;
};

}  // namespace rota::rpc
