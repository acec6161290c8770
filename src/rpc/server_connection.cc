#include "rpc/server_connection.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <exception>

namespace rota::rpc {

// ---- Responder ----

// One request's answer slot, shared by every copy of its Responder.
struct Responder::State {
  State(std::weak_ptr<internal::Connection> connection_in,
        std::shared_ptr<internal::ServerShared> shared_in, uint64_t request_id_in)
      : connection(std::move(connection_in)),
        shared(std::move(shared_in)),
        request_id(request_id_in) {}

  // The last copy went away: tell the client rather than leave it waiting.
  ~State() {
    Answer(WireStatus(StatusCode::kInternal),
           fmt::format("the server dropped request {} without answering it", request_id));
  }

  void Answer(uint16_t status, std::string body) {
    if (answered.exchange(true)) return;
    if (body.size() > shared->options.limits.max_body_bytes) {
      spdlog::error("rpc: response to request {} is {} bytes, over the {}-byte limit", request_id,
                    body.size(), shared->options.limits.max_body_bytes);
      status = WireStatus(StatusCode::kInternal);
      body = fmt::format("the response to request {} was too large to send ({} bytes)", request_id,
                         body.size());
    }
    // Encoded here, on the answering thread, to keep copying off the io threads
    // and out of the gate's critical section.
    std::string frame;
    AppendResponseFrame(status, request_id, body, &frame);
    std::lock_guard gate(shared->gate_mutex);
    if (!shared->gate_open) return;
    if (std::shared_ptr<internal::Connection> live = connection.lock()) {
      live->PostResponseFrame(std::move(frame));
    }
  }

  const std::weak_ptr<internal::Connection> connection;
  const std::shared_ptr<internal::ServerShared> shared;
  const uint64_t request_id;
  std::atomic<bool> answered{false};
};

void Responder::operator()(uint16_t status, std::string body) const {
  if (state_ != nullptr) state_->Answer(status, std::move(body));
}

void Responder::Fail(const Status& error) const {
  (*this)(WireStatus(error.code()), error.message());
}

namespace {
thread_local std::string_view peer_being_handled;
}  // namespace

std::string_view PeerBeingHandled() { return peer_being_handled; }

namespace internal {
namespace {

// Names the peer for the duration of one handler call.
class HandlingPeer {
 public:
  explicit HandlingPeer(std::string_view peer) { peer_being_handled = peer; }
  ~HandlingPeer() { peer_being_handled = {}; }
  HandlingPeer(const HandlingPeer&) = delete;
  HandlingPeer& operator=(const HandlingPeer&) = delete;
};

std::string PeerName(const asio::ip::tcp::socket& socket) {
  asio::error_code error;
  asio::ip::tcp::endpoint peer = socket.remote_endpoint(error);
  if (error) return "unknown peer";
  return fmt::format("{}:{}", peer.address().to_string(), peer.port());
}

}  // namespace

// ---- Connection ----

Connection::Connection(asio::ip::tcp::socket socket, std::shared_ptr<ServerShared> shared,
                       std::string peer_address)
    : shared_(std::move(shared)),
      socket_(std::move(socket)),
      timer_(socket_.get_executor()),
      peer_address_(std::move(peer_address)),
      peer_(PeerName(socket_)),
      decoder_(shared_->options.limits,
               [this](const RequestHead& head) { return CheckHead(head); }),
      connected_at_(std::chrono::steady_clock::now()),
      last_activity_(connected_at_) {
  asio::error_code ignored;
  // Responses are small and latency-bound: do not let Nagle hold them back.
  socket_.set_option(asio::ip::tcp::no_delay(true), ignored);
}

void Connection::Start() {
  asio::post(socket_.get_executor(), [self = shared_from_this()] { self->ReadMore(); });
}

void Connection::PostResponseFrame(std::string frame) {
  // Counted now, not when the strand queues it, so that a handler answering
  // synchronously is seen as backlogged before the next request is dispatched.
  queued_output_bytes_ += frame.size();
  shared_->queued_output_bytes += frame.size();
  asio::post(socket_.get_executor(),
             [self = shared_from_this(), frame = std::move(frame)]() mutable {
               self->QueueFrame(std::move(frame), /*is_response=*/true);
             });
}

void Connection::CloseWithoutThreads() {
  shut_ = true;
  asio::error_code ignored;
  socket_.close(ignored);
  timer_.cancel();
}

Status Connection::CheckHead(const RequestHead& head) {
  // The size first: it costs nothing, and refuses even a genuine sender.
  const uint32_t limit = shared_->options.body_limits.For(head.method);
  if (head.body_length > limit) {
    return OutOfRange(
        fmt::format("request {} (method {}) declares a body of {} bytes; the limit for that "
                    "method is {}",
                    head.request_id, head.method, head.body_length, limit));
  }
  if (shared_->options.screen_credential) {
    Status screened = shared_->options.screen_credential(head.method, head.credential, peer_);
    if (!screened.ok()) return screened;
  }
  return Status::Ok();
}

bool Connection::OutputBacklogged() const {
  const size_t mine = queued_output_bytes_;
  return mine > shared_->options.max_queued_output_bytes_per_connection ||
         (mine > 0 && shared_->queued_output_bytes > shared_->options.max_queued_output_bytes);
}

void Connection::ReadMore() {
  if (shut_ || closing_ || reading_) return;
  if (in_flight_ >= shared_->options.max_in_flight_per_connection || !undispatched_.empty() ||
      OutputBacklogged()) {
    // Paused by our own backlog, or until the client reads its answers.
    UpdateTimer();
    return;
  }
  reading_ = true;
  UpdateTimer();
  socket_.async_read_some(
      asio::buffer(read_buffer_.data(), read_buffer_.size()),
      [self = shared_from_this()](const asio::error_code& error, size_t length) {
        self->OnRead(error, length);
      });
}

void Connection::OnRead(const asio::error_code& error, size_t length) {
  reading_ = false;
  if (shut_) return;
  if (error == asio::error::eof) {
    // The client may have only half-closed: it still gets the answers owed.
    StartClosing();
    return;
  }
  if (error) {
    Shutdown("read failed");
    return;
  }
  const bool was_mid_frame = decoder_.mid_frame();
  std::vector<RequestFrame> frames;
  Status decoded = decoder_.Feed(std::string_view(read_buffer_.data(), length), &frames);
  const auto now = std::chrono::steady_clock::now();
  if (!frames.empty()) {
    // Each passed CheckHead, so its credential passed the screen.
    authenticated_ = true;
    last_activity_ = now;
  }
  // The frame clock runs from a frame's first byte, not from each read.
  if (decoder_.mid_frame() && (!was_mid_frame || !frames.empty())) frame_started_at_ = now;
  for (RequestFrame& frame : frames) undispatched_.push_back(std::move(frame));
  DispatchQueued();
  if (!decoded.ok()) {
    RefuseAndClose(decoded);
    return;
  }
  ReadMore();
}

void Connection::DispatchQueued() {
  // One read can hold many small frames; the in-flight limit applies per frame.
  while (!shut_ && !undispatched_.empty() &&
         in_flight_ < shared_->options.max_in_flight_per_connection && !OutputBacklogged()) {
    RequestFrame frame = std::move(undispatched_.front());
    undispatched_.pop_front();
    Dispatch(std::move(frame));
  }
}

void Connection::Dispatch(RequestFrame frame) {
  ++in_flight_;
  Responder respond(
      std::make_shared<Responder::State>(weak_from_this(), shared_, frame.request_id));
  const RequestContext context{.method = frame.method,
                               .request_id = frame.request_id,
                               .credential = std::move(frame.credential),
                               .peer = peer_};
  const HandlingPeer handling(peer_);
  // An exception must not unwind through asio and kill an io thread.
  try {
    shared_->handler(context, std::move(frame.body), respond);
  } catch (const std::exception& e) {
    spdlog::error("rpc: handler threw on method {} from {}: {}", context.method, peer_, e.what());
    respond.Fail(Internal(fmt::format("the server failed to handle method {}", context.method)));
  } catch (...) {
    spdlog::error("rpc: handler threw on method {} from {}", context.method, peer_);
    respond.Fail(Internal(fmt::format("the server failed to handle method {}", context.method)));
  }
}

void Connection::RefuseAndClose(const Status& why) {
  uint64_t suppressed = 0;
  if (shared_->refused_frame_log.ShouldLog(&suppressed)) {
    spdlog::warn(
        "rpc: closing connection from {}: {} ({} more such closings since the last report)", peer_,
        why.message(), suppressed);
  }
  std::string frame;
  AppendResponseFrame(WireStatus(why.code()), decoder_.refused_request_id().value_or(0),
                      why.message(), &frame);
  QueueFrame(std::move(frame), /*is_response=*/false);
  StartClosing();
}

void Connection::StartClosing() {
  closing_ = true;
  // A client that never reads, or a handler that never answers, must not keep
  // the socket open past the deadline.
  ArmTimer(std::chrono::steady_clock::now() + shared_->options.frame_deadline);
  Flush();
}

void Connection::QueueFrame(std::string frame, bool is_response) {
  if (shut_) {
    if (is_response) ForgetOutput(frame.size());
    return;
  }
  if (!is_response) {
    queued_output_bytes_ += frame.size();
    shared_->queued_output_bytes += frame.size();
  }
  pending_.push_back(std::move(frame));
  if (is_response) ++pending_responses_;
  Flush();
}

void Connection::ForgetOutput(size_t bytes) {
  queued_output_bytes_ -= bytes;
  shared_->queued_output_bytes -= bytes;
}

void Connection::Flush() {
  if (shut_ || writing_) return;
  if (pending_.empty()) {
    // Requests read before closing began still get their answers first.
    if (closing_ && in_flight_ == 0 && undispatched_.empty()) Shutdown("closed after answering");
    UpdateTimer();
    return;
  }
  // Everything queued goes out in one gathered write.
  sending_.swap(pending_);
  sending_responses_ = pending_responses_;
  pending_responses_ = 0;
  std::vector<asio::const_buffer> buffers;
  buffers.reserve(sending_.size());
  for (const std::string& frame : sending_) buffers.push_back(asio::buffer(frame));
  writing_ = true;
  asio::async_write(socket_, buffers,
                    [self = shared_from_this()](const asio::error_code& error, size_t) {
                      self->OnWritten(error);
                    });
  UpdateTimer();
}

void Connection::OnWritten(const asio::error_code& error) {
  writing_ = false;
  in_flight_ -= sending_responses_;
  sending_responses_ = 0;
  size_t written = 0;
  for (const std::string& frame : sending_) written += frame.size();
  ForgetOutput(written);
  sending_.clear();
  if (shut_) return;
  if (error) {
    Shutdown("write failed");
    return;
  }
  last_activity_ = std::chrono::steady_clock::now();
  DispatchQueued();  // Resumes a connection paused at its in-flight limit...
  Flush();
  ReadMore();  // ...and its reading.
  UpdateTimer();
}

void Connection::UpdateTimer() {
  if (shut_ || closing_) return;  // Closing has its own grace period.
  using Clock = std::chrono::steady_clock;
  const ServerOptions& options = shared_->options;
  std::optional<Clock::time_point> deadline;
  auto consider = [&](Clock::time_point candidate) {
    if (!deadline || candidate < *deadline) deadline = candidate;
  };
  // While we pause reading for our own backlog, the client is not late.
  if (reading_ && decoder_.mid_frame()) consider(frame_started_at_ + options.frame_deadline);
  // Answers that wait this long unread: the client is not reading them.
  if (writing_) consider(last_activity_ + options.idle_timeout);
  // Nothing owed either way: an idle connection.
  if (reading_ && !decoder_.mid_frame() && in_flight_ == 0 && !writing_) {
    consider(last_activity_ + options.idle_timeout);
  }
  if (!authenticated_) consider(connected_at_ + options.unauthenticated_timeout);

  if (!deadline) {
    if (timer_armed_) {
      timer_armed_ = false;
      ++timer_generation_;
      timer_.cancel();
    }
    return;
  }
  if (timer_armed_ && timer_deadline_ == *deadline) return;
  ArmTimer(*deadline);
}

void Connection::ArmTimer(std::chrono::steady_clock::time_point deadline) {
  timer_armed_ = true;
  timer_deadline_ = deadline;
  const uint64_t generation = ++timer_generation_;
  timer_.expires_at(deadline);
  timer_.async_wait([self = shared_from_this(), generation](const asio::error_code& error) {
    // A cancelled or superseded timer may still complete without an error.
    if (error || generation != self->timer_generation_ || self->shut_) return;
    self->timer_armed_ = false;
    self->OnTimer();
  });
}

void Connection::OnTimer() {
  if (closing_) {
    Shutdown("answers not delivered within the deadline while closing");
  } else if (!authenticated_ && std::chrono::steady_clock::now() >=
                                    connected_at_ + shared_->options.unauthenticated_timeout) {
    Shutdown("no authenticated request in time after connecting");
  } else if (reading_ && decoder_.mid_frame()) {
    Shutdown("frame not completed within the deadline");
  } else if (writing_) {
    Shutdown("answers left unread past the idle timeout");
  } else {
    Shutdown("idle past the idle timeout");
  }
}

void Connection::Shutdown(const char* why) {
  if (shut_) return;
  shut_ = true;
  closing_ = true;
  spdlog::debug("rpc: connection from {} closed: {}", peer_, why);
  asio::error_code ignored;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  socket_.close(ignored);
  ++timer_generation_;
  timer_.cancel();
  size_t dropped = 0;
  for (const std::string& frame : pending_) dropped += frame.size();
  ForgetOutput(dropped);
  pending_.clear();
  // Leave the registry. The caller's handler still holds a reference, so this
  // is never the last one; release it outside the lock all the same.
  std::shared_ptr<Connection> registered;
  {
    std::lock_guard lock(shared_->connections_mutex);
    auto it = shared_->connections.find(this);
    if (it != shared_->connections.end()) {
      registered = std::move(it->second);
      shared_->connections.erase(it);
      auto count = shared_->connections_per_address.find(peer_address_);
      if (count != shared_->connections_per_address.end() && --count->second == 0) {
        shared_->connections_per_address.erase(count);
      }
    }
  }
}

}  // namespace internal
}  // namespace rota::rpc
