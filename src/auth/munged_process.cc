#include "auth/munged_process.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <openssl/rand.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "auth/munge_auth.h"

extern char** environ;

namespace rota::auth::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

constexpr auto kStartTimeout = std::chrono::seconds(10);
constexpr auto kStopTimeout = std::chrono::seconds(5);

Status WriteKey(const std::string& path) {
  std::array<unsigned char, 1024> key{};
  if (RAND_bytes(key.data(), key.size()) != 1) return Internal("RAND_bytes failed");
  // munged insists the key is readable by its owner only.
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0400);
  if (fd < 0) return IoError(fmt::format("cannot create {}: {}", path, std::strerror(errno)));
  const bool written = write(fd, key.data(), key.size()) == static_cast<ssize_t>(key.size());
  close(fd);
  return written ? Status::Ok() : IoError("cannot write " + path);
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Stops `pid` and reaps it: SIGTERM, then SIGKILL if it lingers.
void StopAndReap(pid_t pid) {
  kill(pid, SIGTERM);
  const auto deadline = steady_clock::now() + kStopTimeout;
  while (steady_clock::now() < deadline) {
    if (waitpid(pid, nullptr, WNOHANG) == pid) return;
    std::this_thread::sleep_for(milliseconds(10));
  }
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
}

std::string DescribeExit(int wait_status) {
  if (WIFEXITED(wait_status)) return fmt::format("exited with status {}", WEXITSTATUS(wait_status));
  if (WIFSIGNALED(wait_status)) return fmt::format("killed by signal {}", WTERMSIG(wait_status));
  return "stopped";
}

}  // namespace

Result<std::unique_ptr<MungedProcess>> MungedProcess::Start(const std::filesystem::path& dir) {
  const char* override_path = std::getenv("MUNGED");
  const std::string munged = override_path != nullptr ? override_path : "/usr/sbin/munged";
  const std::string key = (dir / "munge.key").string();
  const std::string socket = (dir / "munge.socket").string();
  const std::filesystem::path output = dir / "munged.out";
  ROTA_RETURN_IF_ERROR(WriteKey(key));

  std::vector<std::string> args = {munged,
                                   "--foreground",
                                   "--force",
                                   "--socket=" + socket,
                                   "--key-file=" + key,
                                   "--pid-file=" + (dir / "munged.pid").string(),
                                   "--log-file=" + (dir / "munged.log").string(),
                                   "--seed-file=" + (dir / "munged.seed").string(),
                                   "--num-threads=2"};
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);

  // munged's stdout and stderr go to a file we can quote when it fails.
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, output.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = -1;
  const int spawn_error =
      posix_spawn(&pid, munged.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawn_error != 0) {
    return FailedPrecondition(fmt::format("cannot start {}: {} (is the munge package installed?)",
                                          munged, std::strerror(spawn_error)));
  }

  // Ready once an encode request through the socket succeeds.
  MungeIssuer probe(socket);
  const auto deadline = steady_clock::now() + kStartTimeout;
  while (steady_clock::now() < deadline) {
    int wait_status = 0;
    if (waitpid(pid, &wait_status, WNOHANG) == pid) {
      return FailedPrecondition(fmt::format("{} {} before it was ready; its output:\n{}", munged,
                                            DescribeExit(wait_status), ReadFile(output)));
    }
    if (std::filesystem::exists(socket) && probe.Issue("probe").ok()) {
      return std::unique_ptr<MungedProcess>(new MungedProcess(pid, socket));
    }
    std::this_thread::sleep_for(milliseconds(20));
  }
  StopAndReap(pid);
  return FailedPrecondition(fmt::format("{} did not answer on {} within {} s; its output:\n{}",
                                        munged, socket, std::chrono::seconds(kStartTimeout).count(),
                                        ReadFile(output)));
}

MungedProcess::~MungedProcess() { StopAndReap(pid_); }

}  // namespace rota::auth::testing
