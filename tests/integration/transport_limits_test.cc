// Real daemons under a connection flood from one peer address: rotactld
// refuses what is over the per-peer cap (lowered for the test through
// ROTA_RPC_MAX_CONNECTIONS_PER_PEER), keeps serving the commands of others,
// says so in a few log lines, and is alive afterwards; a rotad with few
// descriptors, flooded, still runs the job sent to it.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include "common/strings.h"
#include "tests/integration/controller_process.h"
#include "tests/integration/two_node_cluster_test.h"

namespace rota {
namespace {

using testing::CommandResult;
using testing::ControllerProcess;

constexpr int kPerPeerCap = 40;
constexpr int kFlood = 300;

// Sets an environment variable for the daemons this test starts.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() { unsetenv(name_); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
};

// Plain TCP connections to 127.0.0.1:port from 127.0.0.2, a peer address of
// their own; closed by the destructor, also when the test fails.
class Flood {
 public:
  Flood(uint16_t port, int count) {
    for (int i = 0; i < count; ++i) {
      int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      if (fd < 0) break;
      sockaddr_in source{};
      source.sin_family = AF_INET;
      inet_pton(AF_INET, "127.0.0.2", &source.sin_addr);
      sockaddr_in target{};
      target.sin_family = AF_INET;
      target.sin_port = htons(port);
      target.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      if (bind(fd, reinterpret_cast<sockaddr*>(&source), sizeof(source)) != 0 ||
          connect(fd, reinterpret_cast<sockaddr*>(&target), sizeof(target)) != 0) {
        close(fd);
        break;
      }
      fds_.push_back(fd);
    }
  }
  ~Flood() {
    for (int fd : fds_) close(fd);
  }
  Flood(const Flood&) = delete;
  Flood& operator=(const Flood&) = delete;

  size_t opened() const { return fds_.size(); }

  // How many the controller has closed, waiting up to `timeout` for at least
  // `expected`.
  size_t ClosedByPeer(size_t expected, std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    std::vector<bool> closed(fds_.size(), false);
    size_t count = 0;
    while (true) {
      for (size_t i = 0; i < fds_.size(); ++i) {
        if (closed[i]) continue;
        char buffer[512];
        ssize_t n;
        while ((n = recv(fds_[i], buffer, sizeof(buffer), MSG_DONTWAIT)) > 0) {
        }
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) {
          closed[i] = true;
          ++count;
        }
      }
      if (count >= expected || std::chrono::steady_clock::now() > deadline) return count;
      usleep(20'000);
    }
  }

 private:
  std::vector<int> fds_;
};

size_t CountOf(const std::string& text, const std::string& what) {
  size_t count = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
    ++count;
  }
  return count;
}

TEST(TransportLimitsTest, ConnectionFloodFromOnePeerLeavesTheControllerServing) {
  ControllerProcess ctld;
  {
    const ScopedEnv cap("ROTA_RPC_MAX_CONNECTIONS_PER_PEER", std::to_string(kPerPeerCap));
    ASSERT_TRUE(ctld.Start()) << ctld.Log();
  }
  // The line comes just after the port opens: wait for it rather than race it.
  EXPECT_TRUE(testing::WaitUntil([&] {
    return ctld.Log().find(std::to_string(kPerPeerCap) + " per peer address") != std::string::npos;
  })) << ctld.Log();

  Flood flood(ctld.port(), kFlood);
  ASSERT_EQ(flood.opened(), static_cast<size_t>(kFlood));
  // Everything over the cap is refused and closed at once; what is under it
  // is held open (until the unauthenticated timeout).
  const size_t refused = kFlood - kPerPeerCap;
  EXPECT_GE(flood.ClosedByPeer(refused, std::chrono::seconds(5)), refused);

  // Meanwhile commands from another address (127.0.0.1) are served.
  CommandResult r = ctld.Run("sbatch --hold -J during-flood --wrap=true");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out, "Submitted batch job 1\n");
  r = ctld.Run("squeue -h -o %j");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out, "during-flood\n");

  // Each refusal is not a log line of its own.
  const std::string log = ctld.Log();
  EXPECT_GE(CountOf(log, "refused a connection from 127.0.0.2"), 1u) << log;
  EXPECT_LE(CountOf(log, "refused a connection from 127.0.0.2"), 3u) << log;

  // A second wave is refused as well, and the controller is alive afterwards.
  {
    Flood again(ctld.port(), 100);
    EXPECT_GE(again.ClosedByPeer(100, std::chrono::seconds(5)), 100u);
  }
  r = ctld.Run("scontrol ping");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  r = ctld.Run("scancel 1");
  EXPECT_EQ(r.exit_code, 0) << r.out;
}

// The node half of issue 28's flood: a rotad started with a soft descriptor
// limit of 512, flooded with 600 connections from one address, still runs the
// job the controller sends it. Before, the flood took every descriptor (rotad
// neither raised its limit nor capped connections) and the launch failed.
class NodeFloodTest : public testing::TwoNodeClusterTest {};

TEST_F(NodeFloodTest, FloodedNodeStillRunsItsJob) {
  cluster_->StopNode(1);
  rlimit before{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &before), 0);
  // The soft limit only: a daemon may raise it to the hard limit, and so may
  // this process afterwards.
  const rlimit few{512, before.rlim_max};
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &few), 0);  // Inherited by the rotad started now.
  const bool started = cluster_->StartNode(1, {"ROTA_RPC_MAX_CONNECTIONS_PER_PEER=50"});
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &before), 0);
  ASSERT_TRUE(started) << cluster_->NodeLogs();
  ASSERT_TRUE(testing::WaitUntil([&] { return cluster_->Run("sinfo -h -o %t").out == "idle\n"; }))
      << cluster_->Run("sinfo").out;

  Flood flood(cluster_->NodePort(1), 600);
  ASSERT_EQ(flood.opened(), 600u);
  EXPECT_GE(flood.ClosedByPeer(550, std::chrono::seconds(5)), 550u);

  // First fit puts a one-node job on node 1.
  CommandResult r = cluster_->Run("sbatch --parsable --chdir=" + cluster_->work_dir() + " -w " +
                                  cluster_->Node(1) + " --wrap='echo flooded-but-fine'");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string id(Trim(r.out));
  EXPECT_TRUE(WaitForState(id, "COMPLETED")) << cluster_->Run("squeue -t all").out;
  EXPECT_EQ(Output(id), "flooded-but-fine\n");
}

}  // namespace
}  // namespace rota
