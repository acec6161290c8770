#pragma once

// Serves the credential socket (credential_socket.h): signs an auth/slurm
// credential for each local process that asks, naming the uid and gid the
// kernel reports for it (SO_PEERCRED), never one it claims. One thread with a
// poll loop; every connection has a deadline, and the connections open at
// once are bounded in total and per uid, so one user cannot starve the others
// by opening connections and sending nothing.
//
// The socket is made mode 0666 (any local user may ask: the identity comes
// from the kernel) and its missing parent directories 0755. A live socket at
// the path (another daemon on this host serves it) is left alone and Start
// fails with kAlreadyExists; a dead one (its server was killed) is replaced.

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <thread>

#include "auth/credential.h"
#include "auth/slurm_key_auth.h"
#include "auth/slurm_key_file.h"

namespace rota::auth {

class CredentialSocketServer {
 public:
  struct Options {
    std::string path;
    size_t max_connections = 256;
    size_t max_connections_per_uid = 16;
    // A connection that has not sent its request by then is closed.
    std::chrono::milliseconds request_timeout{2000};
  };

  // Binds and listens, then serves on a thread of its own until Stop.
  // `millis_clock` (Unix ms) dates the credentials.
  static Result<std::unique_ptr<CredentialSocketServer>> Start(
      std::shared_ptr<const SlurmKey> key, Options options,
      UnixClock millis_clock = SystemUnixMillis);
  ~CredentialSocketServer();  // Stop().
  CredentialSocketServer(const CredentialSocketServer&) = delete;
  CredentialSocketServer& operator=(const CredentialSocketServer&) = delete;

  // Stops serving, closes every connection and removes the socket file if it
  // is still ours. Idempotent.
  void Stop();

  const std::string& path() const { return options_.path; }

 private:
  CredentialSocketServer(std::shared_ptr<const SlurmKey> key, Options options, UnixClock clock)
      : key_(std::move(key)), options_(std::move(options)), clock_(std::move(clock)) {}
  void Serve();  // The thread's loop.
  // The answer to a complete request from a peer with `who`'s identity.
  std::string Answer(std::string_view request, Identity who);

  const std::shared_ptr<const SlurmKey> key_;
  const Options options_;
  const UnixClock clock_;
  int listen_fd_ = -1;
  int wake_fd_ = -1;  // eventfd: Stop() wakes the loop.
  ino_t socket_inode_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

// Under auth/slurm: loads the key named by `settings` and serves the credential
// socket at settings.credential_socket. kFailedPrecondition under another
// AuthType (munged issues munge credentials itself).
Result<std::unique_ptr<CredentialSocketServer>> ServeCredentialSocket(const AuthSettings& settings);

}  // namespace rota::auth
