#pragma once
// A real rotadbd for integration tests, beside a ControllerProcess.

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <fstream>
#include <string>

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
    return AwaitAccepting(pid_, port_);
  }
  void Kill(int sig) { KillAndReap(pid_, sig); }
  std::string Log() const { return ReadLogFile(log_); }

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
