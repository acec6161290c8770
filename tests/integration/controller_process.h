#pragma once

// A real rotactld for integration tests: writes a configuration (auth/slurm
// with a fresh key, loopback, a free port, state in a temp dir), starts the
// built binary, and stops it — also when the test fails.

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "testing/free_port.h"
#include "testing/temp_dir.h"
#include "tests/integration/run_command.h"

namespace rota::testing {

// Whether something accepts connections on 127.0.0.1:`port`.
inline bool LoopbackAccepting(uint16_t port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool ok = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  close(fd);
  return ok;
}

// Waits up to 10 s for the daemon `pid` (a child) to accept on `port`. A
// daemon that exits meanwhile is reaped and `pid` becomes -1.
inline bool AwaitAccepting(pid_t& pid, uint16_t port) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline) {
    if (LoopbackAccepting(port)) return true;
    int status;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      pid = -1;
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

// Sends `sig` to the child `pid` (if any) and reaps it.
inline void KillAndReap(pid_t& pid, int sig) {
  if (pid <= 0) return;
  kill(pid, sig);
  int status;
  waitpid(pid, &status, 0);
  pid = -1;
}

inline std::string ReadLogFile(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

class ControllerProcess {
 public:
  // `extra` is appended to the generated slurm.conf.
  explicit ControllerProcess(const std::string& extra = "") {
    port_ = FreeLoopbackPort();
    std::string state = (dir_.path() / "state").string();
    conf_ = dir_.Write("slurm.conf",
                       "ClusterName=itest\n"
                       "SlurmctldHost=localhost(127.0.0.1)\n"
                       "SlurmctldPort=" +
                           std::to_string(port_) +
                           "\n"
                           "AuthType=auth/slurm\n"
                           "StateSaveLocation=" +
                           state +
                           "\n"
                           "GresTypes=gpu\n"
                           "SelectTypeParameters=CR_Core_Memory\n"
                           "DefMemPerCPU=1024\n"
                           "MinJobAge=600\n"
                           // Nobody listens on the node port: launches fail fast, as
                           // there are no node daemons in these tests.
                           "SlurmdPort=" +
                           std::to_string(FreeLoopbackPort()) + "\n" +
                           "NodeName=n[1-4] NodeAddr=127.0.0.1 CPUs=8 Sockets=2 CoresPerSocket=4 "
                           "RealMemory=64000 Gres=gpu:a100:4\n"
                           "PartitionName=batch Nodes=ALL Default=YES MaxTime=1-00:00:00 "
                           "DefaultTime=01:00:00\n" +
                           extra);
    std::string key;
    std::mt19937_64 rng(std::random_device{}());
    for (int i = 0; i < 64; ++i) key += static_cast<char>(rng() & 0xff);
    std::string key_path = dir_.Write("slurm.key", key);
    chmod(key_path.c_str(), 0600);
    log_ = (dir_.path() / "rotactld.log").string();
  }
  ~ControllerProcess() { Kill(SIGKILL); }

  const std::string& conf() const { return conf_; }
  uint16_t port() const { return port_; }
  const TempDir& dir() const { return dir_; }

  // Starts rotactld and waits until it accepts connections. False on failure.
  bool Start() {
    pid_ = fork();
    if (pid_ == 0) {
      int fd = open(log_.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      dup2(fd, 1);
      dup2(fd, 2);
      std::string bin = BinDir() + "/rotactld";
      execl(bin.c_str(), bin.c_str(), "-f", conf_.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    return AwaitAccepting(pid_, port_);
  }

  // Sends `sig` and reaps the process.
  void Kill(int sig) { KillAndReap(pid_, sig); }

  std::string Log() const { return ReadLogFile(log_); }

  // Runs a built command against this controller.
  CommandResult Run(const std::string& command_line, bool with_stderr = true) const {
    std::string cmd = "SLURM_CONF=" + conf_ + " PATH=" + BinDir() + ":$PATH " + command_line;
    if (with_stderr) cmd += " 2>&1";
    return RunShell(cmd);
  }

 private:
  TempDir dir_;
  std::string conf_;
  std::string log_;
  uint16_t port_ = 0;
  pid_t pid_ = -1;
};

}  // namespace rota::testing
