#include "rpc/server.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <optional>
#include <thread>
#include <vector>

#include "rpc/server_connection.h"

namespace rota::rpc {

using internal::Connection;
using internal::ServerShared;

namespace {

// Tells a refused peer why, if its socket will take the bytes now, and closes.
void RefuseConnection(asio::ip::tcp::socket& socket, const std::string& why) {
  std::string frame;
  AppendResponseFrame(WireStatus(StatusCode::kUnavailable), 0, why, &frame);
  asio::error_code ignored;
  socket.non_blocking(true, ignored);
  socket.write_some(asio::buffer(frame), ignored);
  socket.close(ignored);
}

}  // namespace

uint64_t RaiseDescriptorLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return 1024;
  if (limit.rlim_cur < limit.rlim_max) {
    rlimit raised = limit;
    raised.rlim_cur = limit.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
  }
  return limit.rlim_cur == RLIM_INFINITY ? uint64_t{1} << 20 : uint64_t{limit.rlim_cur};
}

size_t DefaultMaxConnections(uint64_t descriptor_limit) {
  const uint64_t reserve = std::max<uint64_t>(256, descriptor_limit / 4);
  // Even a tiny limit leaves a few connections, so that the daemon answers.
  const uint64_t usable = descriptor_limit > reserve + 16 ? descriptor_limit - reserve : 16;
  return static_cast<size_t>(std::min<uint64_t>(usable, 16384));
}

namespace {

size_t CurrentDescriptorLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return 1024;
  return limit.rlim_cur == RLIM_INFINITY ? size_t{1} << 20 : static_cast<size_t>(limit.rlim_cur);
}

}  // namespace

// Owns the io_context, the acceptor and the io threads. The acceptor is touched
// only by its single outstanding accept handler, and by Stop() after the
// threads are joined, so it needs no strand.
class RpcServer::Impl {
 public:
  Impl(std::shared_ptr<ServerShared> shared)
      : shared_(std::move(shared)),
        max_connections_(shared_->options.max_connections != 0
                             ? shared_->options.max_connections
                             : DefaultMaxConnections(CurrentDescriptorLimit())),
        io_(std::make_unique<asio::io_context>(shared_->options.io_threads)),
        work_(asio::make_work_guard(*io_)),
        acceptor_(std::make_unique<asio::ip::tcp::acceptor>(*io_)),
        accept_retry_timer_(std::make_unique<asio::steady_timer>(*io_)) {}

  ~Impl() { Stop(); }

  Result<uint16_t> Listen() {
    const ServerOptions& options = shared_->options;
    asio::error_code error;
    const asio::ip::address address = asio::ip::make_address(options.address, error);
    if (error) {
      return InvalidArgument(
          fmt::format("cannot listen on \"{}\": not a numeric IP address", options.address));
    }
    const asio::ip::tcp::endpoint endpoint(address, options.port);
    auto fail = [&](const char* step) -> Status {
      return Status(
          StatusCode::kUnavailable,
          fmt::format("cannot {} {}:{}: {}", step, options.address, options.port, error.message()));
    };
    acceptor_->open(endpoint.protocol(), error);
    if (error) return fail("open a socket for");
    // A restarted daemon must be able to rebind while old connections linger.
    acceptor_->set_option(asio::socket_base::reuse_address(true), error);
    if (error) return fail("set SO_REUSEADDR on");
    acceptor_->bind(endpoint, error);
    if (error) return fail("bind");
    acceptor_->listen(asio::socket_base::max_listen_connections, error);
    if (error) return fail("listen on");
    const uint16_t port = acceptor_->local_endpoint(error).port();
    if (error) return fail("read the bound port of");
    return port;
  }

  void Run() {
    Accept();
    const int threads = std::max(1, shared_->options.io_threads);
    for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { io_->run(); });
  }

  void Stop() {
    {
      std::lock_guard gate(shared_->gate_mutex);
      if (!shared_->gate_open) return;
      shared_->gate_open = false;
    }
    work_.reset();
    io_->stop();
    for (std::thread& thread : threads_) thread.join();
    threads_.clear();
    asio::error_code ignored;
    acceptor_->close(ignored);
    std::unordered_map<Connection*, std::shared_ptr<Connection>> connections;
    {
      std::lock_guard lock(shared_->connections_mutex);
      connections.swap(shared_->connections);
    }
    for (auto& [raw, connection] : connections) connection->CloseWithoutThreads();
    connections.clear();
    {
      std::lock_guard lock(shared_->connections_mutex);
      shared_->connections_per_address.clear();
    }
    // Every remaining reference to a connection sits in an unrun handler, which
    // the io_context destroys with itself; sockets and timers go before it.
    accept_retry_timer_.reset();
    acceptor_.reset();
    io_.reset();
  }

 private:
  void Accept() {
    // Each connection gets its own strand: its handlers never run concurrently,
    // while different connections proceed on different io threads.
    acceptor_->async_accept(asio::make_strand(*io_), [this](const asio::error_code& error,
                                                            asio::ip::tcp::socket socket) {
      if (error == asio::error::operation_aborted) return;
      if (error) {
        // Typically out of file descriptors (EMFILE, ENFILE): pause instead of
        // spinning, and keep serving the connections already open.
        uint64_t suppressed = 0;
        if (accept_failure_log_.ShouldLog(&suppressed)) {
          spdlog::warn(
              "rpc: accept failed: {}; retrying every 100 ms ({} more failures since "
              "the last report)",
              error.message(), suppressed);
        }
        accept_retry_timer_->expires_after(std::chrono::milliseconds(100));
        accept_retry_timer_->async_wait([this](const asio::error_code& timer_error) {
          if (!timer_error) Accept();
        });
        return;
      }
      Admit(std::move(socket));
      Accept();
    });
  }

  // Registers and starts a connection, or refuses it when a cap is reached.
  void Admit(asio::ip::tcp::socket socket) {
    asio::error_code error;
    const asio::ip::tcp::endpoint peer = socket.remote_endpoint(error);
    if (error) return;  // Already gone.
    const std::string address = peer.address().to_string();
    std::string refusal;
    std::shared_ptr<Connection> connection;
    {
      std::lock_guard lock(shared_->connections_mutex);
      size_t& from_address = shared_->connections_per_address[address];
      if (shared_->connections.size() >= max_connections_) {
        refusal = fmt::format("the server has its maximum of {} connections open; retry later",
                              max_connections_);
      } else if (from_address >= shared_->options.max_connections_per_peer) {
        refusal = fmt::format("{} has its maximum of {} connections open to this server", address,
                              shared_->options.max_connections_per_peer);
      } else {
        connection = std::make_shared<Connection>(std::move(socket), shared_, address);
        shared_->connections.emplace(connection.get(), connection);
        ++from_address;
      }
      if (from_address == 0) shared_->connections_per_address.erase(address);
    }
    if (connection == nullptr) {
      ++refused_connections_;
      RefuseConnection(socket, refusal);
      uint64_t suppressed = 0;
      if (refusal_log_.ShouldLog(&suppressed)) {
        spdlog::warn(
            "rpc: refused a connection from {}: {} ({} more refused since the last report)",
            address, refusal, suppressed);
      }
      return;
    }
    connection->Start();
  }

 public:
  size_t max_connections() const { return max_connections_; }
  size_t open_connections() const {
    std::lock_guard lock(shared_->connections_mutex);
    return shared_->connections.size();
  }
  size_t queued_output_bytes() const { return shared_->queued_output_bytes.load(); }
  uint64_t refused_connections() const { return refused_connections_.load(); }

 private:
  const std::shared_ptr<ServerShared> shared_;
  const size_t max_connections_;
  std::atomic<uint64_t> refused_connections_{0};
  LogRateLimit accept_failure_log_{std::chrono::seconds(10)};
  LogRateLimit refusal_log_{std::chrono::seconds(10)};
  std::unique_ptr<asio::io_context> io_;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work_;
  std::unique_ptr<asio::ip::tcp::acceptor> acceptor_;
  std::unique_ptr<asio::steady_timer> accept_retry_timer_;
  std::vector<std::thread> threads_;
};

Result<std::unique_ptr<RpcServer>> RpcServer::Start(ServerOptions options, RequestHandler handler) {
  auto impl = std::make_unique<Impl>(
      std::make_shared<ServerShared>(std::move(options), std::move(handler)));
  Result<uint16_t> port = impl->Listen();
  if (!port.ok()) return port.status();
  impl->Run();
  return std::unique_ptr<RpcServer>(new RpcServer(std::move(impl), *port));
}

RpcServer::RpcServer(std::unique_ptr<Impl> impl, uint16_t port)
    : impl_(std::move(impl)), port_(port) {}

RpcServer::~RpcServer() { Stop(); }

void RpcServer::Stop() { impl_->Stop(); }

size_t RpcServer::max_connections() const { return impl_->max_connections(); }
size_t RpcServer::open_connections() const { return impl_->open_connections(); }
size_t RpcServer::queued_output_bytes() const { return impl_->queued_output_bytes(); }
uint64_t RpcServer::refused_connections() const { return impl_->refused_connections(); }

}  // namespace rota::rpc
