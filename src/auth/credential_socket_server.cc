#include "auth/credential_socket_server.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <vector>

#include "auth/credential_socket.h"
#include "auth/slurm_key_auth.h"

namespace rota::auth {
namespace {

using SteadyClock = std::chrono::steady_clock;

struct Connection {
  int fd = -1;
  Identity who;
  SteadyClock::time_point deadline;
  std::string request;
};

std::string Framed(uint8_t kind, std::string_view payload) {
  std::string out;
  out.push_back(static_cast<char>(kind));
  const size_t length = std::min<size_t>(payload.size(), 0xffff);
  out.push_back(static_cast<char>(length & 0xff));
  out.push_back(static_cast<char>(length >> 8));
  out.append(payload.substr(0, length));
  return out;
}

// Sends what fits without blocking: the answer is ~100 bytes, far below a
// socket's buffer, so a short send means the peer is gone or hostile.
void SendAndClose(int fd, std::string_view answer) {
  (void)send(fd, answer.data(), answer.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  // Closing with unread input resets the connection, and the peer then
  // loses the answer too: read what has come (a refused peer's request).
  char sink[kCredentialSocketRequestSize];
  while (recv(fd, sink, sizeof sink, MSG_DONTWAIT) > 0) {
  }
  close(fd);
}

Status ErrnoStatus(std::string_view what, const std::string& path) {
  return IoError(fmt::format("credential socket {}: {}: {}", path, what, std::strerror(errno)));
}

// Makes room at `path`: creates its missing parent directories (0755, so that
// everyone reaches the socket) and removes a dead socket left there. Refuses
// to touch a live socket or anything that is not a socket.
Status PreparePath(const std::string& path, const sockaddr_un& address) {
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty() && !std::filesystem::exists(parent)) {
    std::vector<std::filesystem::path> missing;
    for (auto p = parent; !p.empty() && !std::filesystem::exists(p); p = p.parent_path()) {
      missing.push_back(p);
      if (p == p.parent_path()) break;
    }
    for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
      if (mkdir(it->c_str(), 0755) != 0 && errno != EEXIST) {
        return ErrnoStatus("cannot create directory " + it->string(), path);
      }
      chmod(it->c_str(), 0755);  // Whatever the umask.
    }
  }
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return Status::Ok();
    return ErrnoStatus("cannot stat", path);
  }
  if (!S_ISSOCK(st.st_mode)) {
    return FailedPrecondition(
        fmt::format("credential socket {}: something that is not a socket is in the way", path));
  }
  int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (probe < 0) return ErrnoStatus("socket()", path);
  const bool live =
      connect(probe, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0;
  close(probe);
  if (live) {
    return Status(StatusCode::kAlreadyExists,
                  fmt::format("credential socket {} is already served by another process on "
                              "this host",
                              path));
  }
  if (unlink(path.c_str()) != 0 && errno != ENOENT) {
    return ErrnoStatus("cannot remove the dead socket", path);
  }
  return Status::Ok();
}

}  // namespace

Result<std::unique_ptr<CredentialSocketServer>> CredentialSocketServer::Start(
    std::shared_ptr<const SlurmKey> key, Options options, UnixClock clock) {
  const std::string path = options.path;
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof(address.sun_path)) {
    return InvalidArgument(fmt::format("credential socket path \"{}\" is empty or too long", path));
  }
  std::memcpy(address.sun_path, path.data(), path.size());
  ROTA_RETURN_IF_ERROR(PreparePath(path, address));

  std::unique_ptr<CredentialSocketServer> server(
      new CredentialSocketServer(std::move(key), std::move(options), std::move(clock)));
  server->listen_fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (server->listen_fd_ < 0) return ErrnoStatus("socket()", path);
  if (bind(server->listen_fd_, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    if (errno == EADDRINUSE) {
      return Status(
          StatusCode::kAlreadyExists,
          fmt::format("credential socket {} was taken meanwhile by another process", path));
    }
    return ErrnoStatus("cannot bind", path);
  }
  struct stat st {};
  if (stat(path.c_str(), &st) == 0) server->socket_inode_ = st.st_ino;
  // Everyone may connect: the identity signed is the kernel's, not the caller's word.
  if (chmod(path.c_str(), 0666) != 0) return ErrnoStatus("cannot chmod 0666", path);
  if (listen(server->listen_fd_, 128) != 0) return ErrnoStatus("cannot listen", path);
  server->wake_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (server->wake_fd_ < 0) return ErrnoStatus("eventfd()", path);
  CredentialSocketServer* self = server.get();
  server->thread_ = std::thread([self] { self->Serve(); });
  return server;
}

CredentialSocketServer::~CredentialSocketServer() {
  Stop();
  if (wake_fd_ >= 0) close(wake_fd_);
}

void CredentialSocketServer::Stop() {
  if (stopping_.exchange(true)) return;
  if (thread_.joinable()) {
    uint64_t one = 1;
    (void)write(wake_fd_, &one, sizeof one);
    thread_.join();
  }
  if (listen_fd_ >= 0) {
    // Only our own socket: another daemon may have replaced a file we lost.
    struct stat st {};
    if (socket_inode_ != 0 && stat(options_.path.c_str(), &st) == 0 && st.st_ino == socket_inode_ &&
        S_ISSOCK(st.st_mode)) {
      unlink(options_.path.c_str());
    }
    close(listen_fd_);
    listen_fd_ = -1;
  }
}

std::string CredentialSocketServer::Answer(std::string_view request, Identity who) {
  if (request.substr(0, kCredentialSocketMagic.size()) != kCredentialSocketMagic) {
    return Framed(kCredentialSocketAnswerError, "unknown request (protocol RCS1 expected)");
  }
  Sha256Digest digest{};
  std::memcpy(digest.data(), request.data() + kCredentialSocketMagic.size(), digest.size());
  Result<std::string> credential = SignSlurmCredential(*key_, who, clock_(), digest);
  if (!credential.ok()) return Framed(kCredentialSocketAnswerError, credential.status().message());
  return Framed(kCredentialSocketAnswerCredential, *credential);
}

void CredentialSocketServer::Serve() {
  std::vector<Connection> connections;
  std::map<uint32_t, size_t> per_uid;
  auto drop = [&](size_t i, std::string_view answer) {
    if (answer.empty()) {
      close(connections[i].fd);
    } else {
      SendAndClose(connections[i].fd, answer);
    }
    if (--per_uid[connections[i].who.uid] == 0) per_uid.erase(connections[i].who.uid);
    connections[i] = std::move(connections.back());
    connections.pop_back();
  };

  std::vector<pollfd> fds;
  while (!stopping_.load()) {
    fds.clear();
    fds.push_back({.fd = wake_fd_, .events = POLLIN, .revents = 0});
    // A full table stops accepting; the kernel's backlog holds the rest.
    const bool accepting = connections.size() < options_.max_connections;
    fds.push_back({.fd = accepting ? listen_fd_ : -1, .events = POLLIN, .revents = 0});
    const auto now = SteadyClock::now();
    auto next_deadline = now + std::chrono::seconds(60);
    for (const Connection& c : connections) {
      fds.push_back({.fd = c.fd, .events = POLLIN, .revents = 0});
      next_deadline = std::min(next_deadline, c.deadline);
    }
    const auto wait =
        std::chrono::duration_cast<std::chrono::milliseconds>(next_deadline - now).count() + 1;
    const int ready = poll(fds.data(), fds.size(), static_cast<int>(std::max<int64_t>(wait, 0)));
    if (ready < 0 && errno != EINTR) return;
    if (stopping_.load()) break;

    // Requests first (connections' indices match fds from 2 on), back to
    // front so that dropping one does not move the ones still to be seen.
    for (size_t i = connections.size(); i-- > 0;) {
      const short revents = fds[i + 2].revents;
      if (revents == 0) continue;
      Connection& c = connections[i];
      char buffer[kCredentialSocketRequestSize];
      const size_t want = kCredentialSocketRequestSize - c.request.size();
      ssize_t n = recv(c.fd, buffer, want, MSG_DONTWAIT);
      if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
      if (n <= 0) {
        drop(i, "");
        continue;
      }
      c.request.append(buffer, static_cast<size_t>(n));
      if (c.request.size() == kCredentialSocketRequestSize) drop(i, Answer(c.request, c.who));
    }
    const auto after = SteadyClock::now();
    for (size_t i = connections.size(); i-- > 0;) {
      if (connections[i].deadline <= after) drop(i, "");
    }

    if (accepting && (fds[1].revents & POLLIN) != 0) {
      while (connections.size() < options_.max_connections) {
        int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) break;  // EAGAIN: none left; EMFILE and the like: try at the next wake.
        ucred peer{};
        socklen_t length = sizeof peer;
        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &length) != 0) {
          close(fd);
          continue;
        }
        const Identity who{.uid = static_cast<uint32_t>(peer.uid),
                           .gid = static_cast<uint32_t>(peer.gid)};
        if (per_uid[who.uid] >= options_.max_connections_per_uid) {
          SendAndClose(fd, Framed(kCredentialSocketAnswerError,
                                  "too many connections from this user at once; retry"));
          continue;
        }
        ++per_uid[who.uid];
        connections.push_back({.fd = fd,
                               .who = who,
                               .deadline = SteadyClock::now() + options_.request_timeout,
                               .request = {}});
      }
    }
  }
  for (const Connection& c : connections) close(c.fd);
}

Result<std::unique_ptr<CredentialSocketServer>> ServeCredentialSocket(
    const AuthSettings& settings) {
  if (settings.auth_type != "auth/slurm") {
    return FailedPrecondition(fmt::format(
        "the credential socket serves auth/slurm only; AuthType is {}", settings.auth_type));
  }
  if (settings.key_path.empty()) {
    return InvalidArgument("auth/slurm needs the path of its key file (slurm.key)");
  }
  auto key = LoadSlurmKey(settings.key_path);
  if (!key.ok()) return key.status();
  CredentialSocketServer::Options options;
  options.path = settings.credential_socket;
  return CredentialSocketServer::Start(std::move(key).value(), std::move(options));
}

}  // namespace rota::auth
