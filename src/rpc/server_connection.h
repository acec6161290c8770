#pragma once

// Internal to the RPC server: one accepted connection, and the state it shares
// with the server and with outstanding Responders. Not part of the API.

#include <asio.hpp>  // Standalone asio: ASIO_STANDALONE comes from CMake.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/log_rate_limit.h"
#include "rpc/frame.h"
#include "rpc/server.h"

namespace rota::rpc::internal {

// What the server, its connections and outstanding Responders share. A
// Responder may outlive the server, so it holds this rather than the server.
struct ServerShared {
  ServerShared(ServerOptions options_in, RequestHandler handler_in)
      : options(std::move(options_in)), handler(std::move(handler_in)) {}

  const ServerOptions options;
  const RequestHandler handler;

  // Answers queued on every connection and not yet written.
  std::atomic<size_t> queued_output_bytes{0};
  // Connections closed for a malformed, oversized or refused frame.
  LogRateLimit refused_frame_log{std::chrono::seconds(10)};

  // Responders post to a connection's strand only while the gate is open, and
  // hold the gate's mutex while they do, so nothing is posted to an io_context
  // that Stop() is tearing down.
  std::mutex gate_mutex;
  bool gate_open = true;  // GUARDED_BY(gate_mutex)

  // Owns every open connection (its io handlers hold it too). Stop() empties it
  // before destroying the io_context, so no connection outlives its sockets'
  // service.
  std::mutex connections_mutex;
  std::unordered_map<Connection*, std::shared_ptr<Connection>>
      connections;  // GUARDED_BY(connections_mutex)
  // Open connections per peer IP address, for max_connections_per_peer.
  std::unordered_map<std::string, size_t> connections_per_address;  // GUARDED_BY(connections_mutex)
};

// One client connection. Everything below runs on the connection's strand
// (the socket's executor) except the constructor, PostResponseFrame (any thread)
// and CloseWithoutThreads (only once the io threads are joined).
class Connection : public std::enable_shared_from_this<Connection> {
 public:
  // `peer_address`: the peer's IP address, under which ServerShared counts it.
  Connection(asio::ip::tcp::socket socket, std::shared_ptr<ServerShared> shared,
             std::string peer_address);

  // Begins reading. Call once, after registering in ServerShared::connections.
  void Start();

  // Posts an encoded response frame onto the strand for writing. Any thread.
  void PostResponseFrame(std::string frame);

  // Closes the socket directly. REQUIRES: no io thread is running.
  void CloseWithoutThreads();

 private:
  void ReadMore();
  void OnRead(const asio::error_code& error, size_t length);
  void DispatchQueued();
  void Dispatch(RequestFrame frame);
  void RefuseAndClose(const Status& why);
  void StartClosing();
  void QueueFrame(std::string frame, bool is_response);
  void ForgetOutput(size_t bytes);
  void Flush();
  void OnWritten(const asio::error_code& error);
  Status CheckHead(const RequestHead& head);
  bool OutputBacklogged() const;
  void UpdateTimer();
  void ArmTimer(std::chrono::steady_clock::time_point deadline);
  void OnTimer();
  void Shutdown(const char* why);

  const std::shared_ptr<ServerShared> shared_;
  asio::ip::tcp::socket socket_;
  // The earliest of the deadlines that apply (UpdateTimer), or the grace
  // period when closing.
  asio::steady_timer timer_;
  const std::string peer_address_;
  const std::string peer_;
  RequestDecoder decoder_;
  ReadChunk read_buffer_;
  bool reading_ = false;
  bool writing_ = false;
  bool closing_ = false;  // No more reads; close once every answer is written.
  bool shut_ = false;     // Socket closed.
  bool timer_armed_ = false;
  std::chrono::steady_clock::time_point timer_deadline_;  // While timer_armed_.
  uint64_t timer_generation_ = 0;  // Tells a stale timer completion from a live one.
  // A complete request has passed the credential screen (or any complete
  // request, when there is no screen).
  bool authenticated_ = false;
  bool head_screened_ = false;  // The frame being read passed the screen.
  const std::chrono::steady_clock::time_point connected_at_;
  std::chrono::steady_clock::time_point frame_started_at_;  // While decoder_.mid_frame().
  std::chrono::steady_clock::time_point last_activity_;     // Last frame read or write done.
  // Bytes of answers posted (PostResponseFrame, any thread) and not yet
  // written or dropped: in pending_, in sending_, or on their way to the strand.
  std::atomic<size_t> queued_output_bytes_{0};
  size_t in_flight_ = 0;                   // Dispatched requests whose response is not yet written.
  std::deque<RequestFrame> undispatched_;  // Decoded, waiting for in-flight room.
  std::vector<std::string> pending_;       // Frames waiting for the current write to finish.
  std::vector<std::string> sending_;       // Frames of the write in progress.
  size_t pending_responses_ = 0;           // How many of pending_ answer requests.
  size_t sending_responses_ = 0;           // How many of sending_ answer requests.
};

}  // namespace rota::rpc::internal
