#include "rpc/server.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <optional>
#include <thread>
#include <vector>

#include "rpc/server_connection.h"

namespace rota::rpc {

using internal::Connection;
using internal::ServerShared;

// Owns the io_context, the acceptor and the io threads. The acceptor is touched
// only by its single outstanding accept handler, and by Stop() after the
// threads are joined, so it needs no strand.
class RpcServer::Impl {
 public:
  Impl(std::shared_ptr<ServerShared> shared)
      : shared_(std::move(shared)),
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
        // Typically out of file descriptors: pause instead of spinning.
        spdlog::warn("rpc: accept failed: {}; retrying in 100 ms", error.message());
        accept_retry_timer_->expires_after(std::chrono::milliseconds(100));
        accept_retry_timer_->async_wait([this](const asio::error_code& timer_error) {
          if (!timer_error) Accept();
        });
        return;
      }
      auto connection = std::make_shared<Connection>(std::move(socket), shared_);
      {
        std::lock_guard lock(shared_->connections_mutex);
        shared_->connections.emplace(connection.get(), connection);
      }
      connection->Start();
      Accept();
    });
  }

  const std::shared_ptr<ServerShared> shared_;
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

}  // namespace rota::rpc
