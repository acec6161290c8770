#pragma once

// rotarestd's HTTP/1.1 listener, on libmicrohttpd (Debian's libmicrohttpd-dev:
// a small, long-kept C server that takes sockets we bind ourselves, so the
// same code serves TCP and Unix sockets, and tells us the connection's
// descriptor, from which a Unix socket's peer uid comes). Each connection has
// a thread of its own (handlers block on the daemons), up to a bound.
//
// Bounds: request bodies over max_body_bytes are answered 413 (Content-Length
// is checked before the body is read; a chunked body stops being kept at the
// bound); an idle connection is closed after timeout_s; connections beyond
// max_connections are refused at accept.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "rest/rest_types.h"

namespace rota::rest {

struct HttpServerOptions {
  // Where to listen: "HOST:PORT" (port 0: any free one) or "unix:/PATH".
  std::vector<std::string> listen;
  size_t max_body_bytes = size_t{1} << 20;
  unsigned timeout_s = 30;
  unsigned max_connections = 64;
};

class HttpServer {
 public:
  using Handler = std::function<HttpResponse(const HttpRequest&)>;

  // Binds every listen address and starts serving. Errors name the address.
  static Result<std::unique_ptr<HttpServer>> Start(const HttpServerOptions& options,
                                                   Handler handler);
  // Stops listening, waits for the requests in flight, removes Unix sockets.
  ~HttpServer();

  // The TCP ports bound, in the order of the listen addresses (Unix sockets
  // give 0): how a test finds the port it asked 0 for.
  const std::vector<uint16_t>& ports() const { return ports_; }

  struct Impl;

 private:
  HttpServer() = default;

  std::vector<uint16_t> ports_;
  std::unique_ptr<Impl> impl_;
};

// Splits "HOST:PORT" ("[::1]:6820", ":6820" meaning all addresses); false
// when it is not of that form.
bool SplitHostPort(const std::string& address, std::string* host, uint16_t* port);

}  // namespace rota::rest
