#include "rest/http_server.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netdb.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <charconv>
#include <cstring>

#include "common/strings.h"
#include "rest/rest_json.h"

namespace rota::rest {
namespace {

// One request in the making, across libmicrohttpd's calls for it.
struct PendingRequest {
  HttpRequest request;
  bool too_large = false;
};

struct Listener {
  MHD_Daemon* daemon = nullptr;
  int fd = -1;
  std::string unix_path;  // Removed at the end.
};

Status SocketError(const std::string& address, const std::string& what) {
  return Status(StatusCode::kIoError,
                "cannot listen on " + address + ": " + what + ": " + std::strerror(errno));
}

Result<int> BindUnix(const std::string& address, const std::string& path) {
  sockaddr_un sa{};
  if (path.empty() || path.size() >= sizeof sa.sun_path) {
    return InvalidArgument("cannot listen on " + address + ": bad socket path");
  }
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return SocketError(address, "socket");
  sa.sun_family = AF_UNIX;
  std::memcpy(sa.sun_path, path.data(), path.size());
  unlink(path.c_str());  // A socket left by a daemon that died.
  if (bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) {
    Status s = SocketError(address, "bind");
    close(fd);
    return s;
  }
  // Who may connect is decided per request (the peer's uid), not by the mode.
  chmod(path.c_str(), 0666);
  return fd;
}

Result<int> BindTcp(const std::string& address, uint16_t* bound_port) {
  std::string host;
  uint16_t port = 0;
  if (!SplitHostPort(address, &host, &port)) {
    return InvalidArgument("cannot listen on " + address + ": expected HOST:PORT or unix:/PATH");
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  if (getaddrinfo(host.empty() ? nullptr : host.c_str(), service.c_str(), &hints, &found) != 0 ||
      found == nullptr) {
    return InvalidArgument("cannot listen on " + address + ": unknown host " + host);
  }
  int fd = socket(found->ai_family, found->ai_socktype | SOCK_CLOEXEC, found->ai_protocol);
  if (fd < 0) {
    freeaddrinfo(found);
    return SocketError(address, "socket");
  }
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  const int bound = bind(fd, found->ai_addr, found->ai_addrlen);
  freeaddrinfo(found);
  if (bound != 0) {
    Status s = SocketError(address, "bind");
    close(fd);
    return s;
  }
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len);
  *bound_port = ntohs(ss.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port
                                               : reinterpret_cast<sockaddr_in*>(&ss)->sin_port);
  return fd;
}

MHD_Result CollectValue(void* cls, MHD_ValueKind, const char* key, const char* value) {
  auto* into = static_cast<std::map<std::string, std::string>*>(cls);
  (*into)[key] = value == nullptr ? "" : value;
  return MHD_YES;
}

MHD_Result CollectHeader(void* cls, MHD_ValueKind, const char* key, const char* value) {
  auto* into = static_cast<std::map<std::string, std::string>*>(cls);
  (*into)[ToLower(key)] = value == nullptr ? "" : value;
  return MHD_YES;
}

std::optional<uint32_t> PeerUid(MHD_Connection* connection) {
  const MHD_ConnectionInfo* info =
      MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
  if (info == nullptr) return std::nullopt;
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  if (getsockname(info->connect_fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0 ||
      ss.ss_family != AF_UNIX) {
    return std::nullopt;
  }
  ucred cred{};
  socklen_t cred_len = sizeof cred;
  if (getsockopt(info->connect_fd, SOL_SOCKET, SO_PEERCRED, &cred, &cred_len) != 0) {
    return std::nullopt;
  }
  return static_cast<uint32_t>(cred.uid);
}

MHD_Result Send(MHD_Connection* connection, const HttpResponse& answer) {
  MHD_Response* response = MHD_create_response_from_buffer(
      answer.body.size(), const_cast<char*>(answer.body.data()), MHD_RESPMEM_MUST_COPY);
  if (response == nullptr) return MHD_NO;
  MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, answer.content_type.c_str());
  for (const auto& [name, value] : answer.headers) {
    MHD_add_response_header(response, name.c_str(), value.c_str());
  }
  MHD_Result queued =
      MHD_queue_response(connection, static_cast<unsigned>(answer.status), response);
  MHD_destroy_response(response);
  return queued;
}

HttpResponse TooLarge(size_t limit) {
  return ErrorAnswer(ApiFlavor::kRota, 413,
                     "the request body is larger than " + std::to_string(limit) + " bytes",
                     kEslurmRestFailParsing);
}

}  // namespace

struct HttpServer::Impl {
  HttpServerOptions options;
  Handler handler;
  std::vector<Listener> listeners;

  static MHD_Result Access(void* cls, MHD_Connection* connection, const char* url,
                           const char* method, const char* /*version*/, const char* upload_data,
                           size_t* upload_data_size, void** con_cls) {
    auto* self = static_cast<Impl*>(cls);
    auto* pending = static_cast<PendingRequest*>(*con_cls);
    if (pending == nullptr) {
      pending = new PendingRequest();
      *con_cls = pending;
      pending->request.method = method;
      pending->request.path = url;
      MHD_get_connection_values(connection, MHD_GET_ARGUMENT_KIND, CollectValue,
                                &pending->request.query);
      MHD_get_connection_values(connection, MHD_HEADER_KIND, CollectHeader,
                                &pending->request.headers);
      pending->request.peer_uid = PeerUid(connection);
      // A declared length over the bound is refused before any of it is read.
      std::string length = pending->request.Header("content-length");
      uint64_t declared = 0;
      if (!length.empty() &&
          std::from_chars(length.data(), length.data() + length.size(), declared).ec ==
              std::errc() &&
          declared > self->options.max_body_bytes) {
        pending->too_large = true;
        return Send(connection, TooLarge(self->options.max_body_bytes));
      }
      return MHD_YES;
    }
    if (*upload_data_size != 0) {
      if (!pending->too_large) {
        if (pending->request.body.size() + *upload_data_size > self->options.max_body_bytes) {
          pending->too_large = true;
          pending->request.body.clear();
        } else {
          pending->request.body.append(upload_data, *upload_data_size);
        }
      }
      *upload_data_size = 0;
      return MHD_YES;
    }
    if (pending->too_large) return Send(connection, TooLarge(self->options.max_body_bytes));
    HttpResponse answer;
    try {
      answer = self->handler(pending->request);
    } catch (const std::exception& e) {
      answer = ErrorAnswer(ApiFlavor::kRota, 500, std::string("internal error: ") + e.what(),
                           kSlurmError);
    }
    return Send(connection, answer);
  }

  static void Completed(void*, MHD_Connection*, void** con_cls, MHD_RequestTerminationCode) {
    delete static_cast<PendingRequest*>(*con_cls);
    *con_cls = nullptr;
  }

  ~Impl() {
    for (Listener& l : listeners) {
      if (l.daemon != nullptr) MHD_stop_daemon(l.daemon);
      if (l.fd >= 0) close(l.fd);
      if (!l.unix_path.empty()) unlink(l.unix_path.c_str());
    }
  }
};

bool SplitHostPort(const std::string& address, std::string* host, uint16_t* port) {
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos) return false;
  std::string h = address.substr(0, colon);
  if (h.size() >= 2 && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
  std::optional<uint64_t> p = ParseUint(address.substr(colon + 1));
  if (!p || *p > 65535) return false;
  *host = h;
  *port = static_cast<uint16_t>(*p);
  return true;
}

Result<std::unique_ptr<HttpServer>> HttpServer::Start(const HttpServerOptions& options,
                                                      Handler handler) {
  if (options.listen.empty()) return InvalidArgument("no address to listen on");
  std::unique_ptr<HttpServer> server(new HttpServer());
  server->impl_ = std::make_unique<Impl>();
  Impl& impl = *server->impl_;
  impl.options = options;
  impl.handler = std::move(handler);
  for (const std::string& address : options.listen) {
    Listener listener;
    uint16_t port = 0;
    Result<int> fd = address.starts_with("unix:") ? BindUnix(address, address.substr(5))
                                                  : BindTcp(address, &port);
    if (!fd.ok()) return fd.status();
    listener.fd = *fd;
    if (address.starts_with("unix:")) listener.unix_path = address.substr(5);
    if (listen(listener.fd, 128) != 0) {
      Status s = SocketError(address, "listen");
      close(listener.fd);
      return s;
    }
    listener.daemon = MHD_start_daemon(
        MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL, 0, nullptr,
        nullptr, &Impl::Access, &impl, MHD_OPTION_LISTEN_SOCKET, listener.fd,
        MHD_OPTION_CONNECTION_TIMEOUT, options.timeout_s, MHD_OPTION_CONNECTION_LIMIT,
        options.max_connections, MHD_OPTION_NOTIFY_COMPLETED, &Impl::Completed, nullptr,
        MHD_OPTION_END);
    if (listener.daemon == nullptr) {
      close(listener.fd);
      return Status(StatusCode::kIoError, "cannot serve HTTP on " + address);
    }
    impl.listeners.push_back(listener);
    server->ports_.push_back(port);
  }
  return server;
}

HttpServer::~HttpServer() = default;

}  // namespace rota::rest
