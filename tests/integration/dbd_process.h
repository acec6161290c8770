#pragma once
// A real rotadbd for integration tests, beside a ControllerProcess.

#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <string>
#include <thread>

#include "tests/integration/controller_process.h"

namespace rota::testing {

// A real rotadbd on the controller's slurm.conf (and so its key), its
// database in the same temporary directory. Stopped when the test ends.
class DbdProcess {
 public:
  DbdProcess(const ControllerProcess& ctld, uint16_t port) : ctld_(ctld), port_(port) {
    log_ = (ctld.dir().path() / "rotadbd.log").string();
    state_ = (ctld.dir().path() / "dbd").string();
  }
  ~DbdProcess() { Kill(SIGKILL); }

  bool Start() {
    pid_ = fork();
    if (pid_ == 0) {
      int fd = open(log_.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      dup2(fd, 1);
      dup2(fd, 2);
      std::string bin = testing::BinDir() + "/rotadbd";
      execl(bin.c_str(), bin.c_str(), "-f", ctld_.conf().c_str(), "-s", state_.c_str(),
            static_cast<char*>(nullptr));
      _exit(127);
    }
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
      int fd = socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in addr{};
      addr.sin_family = AF_INET;
      addr.sin_port = htons(port_);
      addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      bool ok = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
      close(fd);
      if (ok) return true;
      int status;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return false;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }
  void Kill(int sig) {
    if (pid_ <= 0) return;
    kill(pid_, sig);
    int status;
    waitpid(pid_, &status, 0);
    pid_ = -1;
  }
  std::string Log() const {
    std::ifstream in(log_);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

 private:
  const ControllerProcess& ctld_;
  uint16_t port_;
  std::string log_;
  std::string state_;
  pid_t pid_ = -1;
};

// slurm.conf lines that point the controller at a rotadbd on `port`.
inline std::string AccountingConf(uint16_t port) {
  return "AccountingStorageType=accounting_storage/slurmdbd\n"
         "AccountingStorageHost=localhost\n"
         "AccountingStoragePort=" +
         std::to_string(port) +
         "\n"
         "AccountingStorageTRES=gres/gpu\n";
}

}  // namespace rota::testing
