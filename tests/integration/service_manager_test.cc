// The daemons and systemd (packaging/systemd, common/service_manager.h): a
// real rotactld and rotad started with NOTIFY_SOCKET set, as systemd starts a
// Type=notify unit, tell the socket when they serve, reload and stop; SIGHUP
// reloads the controller's configuration and leaves rotad running.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <fstream>

#include "common/strings.h"
#include "tests/integration/noded_harness.h"

namespace rota::testing {
namespace {

// The service manager's end: a datagram socket that collects what daemons send.
class NotifySocket {
 public:
  explicit NotifySocket(const std::string& path) : path_(path) {
    fd_ = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    path.copy(address.sun_path, sizeof(address.sun_path) - 1);
    bound_ = bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0;
    timeval timeout{.tv_sec = 0, .tv_usec = 100'000};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  }
  ~NotifySocket() { close(fd_); }
  bool bound() const { return bound_; }
  const std::string& path() const { return path_; }

  // Waits until a message containing `text` arrived; every message is kept.
  bool WaitFor(const std::string& text) {
    return WaitUntil(
        [&] {
          char buffer[1024];
          ssize_t n = recv(fd_, buffer, sizeof(buffer), 0);
          if (n > 0) received_.emplace_back(buffer, static_cast<size_t>(n));
          for (const std::string& message : received_) {
            if (message.find(text) != std::string::npos) return true;
          }
          return false;
        },
        std::chrono::seconds(20));
  }
  std::string All() const { return Join(received_, " | "); }
  void Forget() { received_.clear(); }

 private:
  std::string path_;
  int fd_ = -1;
  bool bound_ = false;
  std::vector<std::string> received_;
};

TEST(ServiceManagerTest, DaemonsSayReadyReloadingAndStopping) {
  const uint16_t port = FreeLoopbackPort();
  NodedCluster cluster(port);
  NotifySocket controller_socket((cluster.dir().path() / "ctld.notify").string());
  ASSERT_TRUE(controller_socket.bound());
  auto ctld = std::make_unique<DaemonProcess>(
      std::vector<std::string>{BinDir() + "/rotactld", "-f", cluster.conf()},
      (cluster.dir().path() / "rotactld.log").string(),
      std::vector<std::string>{"NOTIFY_SOCKET=" + controller_socket.path()});
  ASSERT_TRUE(controller_socket.WaitFor("READY=1")) << controller_socket.All() << ctld->Log();
  EXPECT_TRUE(controller_socket.WaitFor("STATUS=serving"));
  // Ready means serving: a command answers at once.
  EXPECT_EQ(cluster.Run("sinfo -h -o %P").exit_code, 0) << ctld->Log();

  // SIGHUP is `scontrol reconfigure`: a partition added to slurm.conf appears.
  std::ofstream(cluster.conf(), std::ios::app)
      << "PartitionName=added Nodes=" << cluster.NodeList() << "\n";
  controller_socket.Forget();
  ASSERT_EQ(kill(ctld->pid(), SIGHUP), 0);
  EXPECT_TRUE(controller_socket.WaitFor("RELOADING=1")) << controller_socket.All();
  EXPECT_TRUE(controller_socket.WaitFor("READY=1")) << controller_socket.All();
  EXPECT_TRUE(WaitUntil([&] {
    return cluster.Run("sinfo -h -p added -o %P").out.find("added") != std::string::npos;
  })) << ctld->Log();
  EXPECT_TRUE(ctld->Running());

  // rotad with a local slurm.conf cannot reload: SIGHUP says to restart it,
  // and it goes on serving (configless, it fetches its files: configless_test).
  NotifySocket node_socket((cluster.dir().path() / "rotad.notify").string());
  ASSERT_TRUE(node_socket.bound());
  ASSERT_TRUE(cluster.StartNode(1, {"NOTIFY_SOCKET=" + node_socket.path()})) << cluster.NodeLogs();
  ASSERT_TRUE(node_socket.WaitFor("READY=1")) << node_socket.All() << cluster.NodeLogs();
  ASSERT_TRUE(cluster.SignalNode(1, SIGHUP));
  EXPECT_TRUE(WaitUntil([&] {
    return cluster.NodeLogs().find(
               "SIGHUP: rotad reads its slurm.conf at start only; restart it "
               "to apply changes; the running configuration stays") != std::string::npos;
  })) << cluster.NodeLogs();
  EXPECT_EQ(Trim(cluster.Run("sinfo -h -n " + cluster.Node(1) + " -o %t").out), "idle")
      << cluster.NodeLogs();

  // SIGTERM: stopping, said before the daemon goes.
  controller_socket.Forget();
  ctld->Stop();
  EXPECT_TRUE(controller_socket.WaitFor("STOPPING=1")) << controller_socket.All();
}

}  // namespace
}  // namespace rota::testing
