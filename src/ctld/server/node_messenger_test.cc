// NodeMessenger against a stand-in node daemon on 127.0.0.1 that holds its
// answers: launches go out in parallel, and one job's messages stay in order.

#include "ctld/server/node_messenger.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "api/methods.h"
#include "auth/none_auth.h"
#include "rota.pb.h"
#include "rpc/server.h"
#include "testing/config_files.h"

namespace rota::ctld {
namespace {

using namespace std::chrono_literals;

constexpr auto kGenerous = 10s;  // For what should happen: sanitizers on two busy cores.

// A node daemon that keeps every request unanswered until the test says so.
class HeldNode {
 public:
  struct Held {
    uint16_t method;
    uint32_t job_id;
    rpc::Responder respond;
  };

  rpc::RequestHandler Handler() {
    return [this](const rpc::RequestContext& context, std::string body, rpc::Responder respond) {
      uint32_t job_id = 0;
      if (context.method == api::kLaunchJob) {
        wire::LaunchJobRequest req;
        req.ParseFromString(body);
        job_id = req.job().job_id();
      } else {
        wire::SignalJobRequest req;
        req.ParseFromString(body);
        job_id = req.job_id();
      }
      std::lock_guard lock(mu_);
      held_.push_back({context.method, job_id, std::move(respond)});
      changed_.notify_all();
    };
  }

  // Waits until `n` requests have arrived in all; false on timeout.
  bool WaitForArrived(size_t n, std::chrono::milliseconds timeout = kGenerous) {
    std::unique_lock lock(mu_);
    return changed_.wait_for(lock, timeout, [&] { return held_.size() >= n; });
  }
  size_t arrived() {
    std::lock_guard lock(mu_);
    return held_.size();
  }
  Held at(size_t i) {
    std::lock_guard lock(mu_);
    return held_.at(i);
  }
  void AnswerAll() {
    std::lock_guard lock(mu_);
    for (Held& h : held_) h.respond(0, "");
  }

 private:
  std::mutex mu_;
  std::condition_variable changed_;
  std::vector<Held> held_;
};

class NodeMessengerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = rpc::RpcServer::Start({}, node_.Handler());
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value();
    testing::LoadedConfig loaded = testing::LoadConfigFiles(
        dir_, testing::ConfigFiles("ClusterName=t\nSlurmctldHost=localhost\n"
                                   "NodeName=n1 NodeAddr=127.0.0.1 Port=" +
                                   std::to_string(server_->port()) +
                                   " CPUs=8 State=UNKNOWN\n"
                                   "PartitionName=p Nodes=n1 Default=YES\n"));
    ASSERT_TRUE(loaded.config.ok()) << loaded.Text();
    messenger_ = std::make_unique<NodeMessenger>(
        *loaded.config, std::make_unique<auth::NoneIssuer>(auth::Identity{0, 0}));
  }
  void TearDown() override {
    node_.AnswerAll();
    messenger_.reset();
    if (server_) server_->Stop();
  }

  static LaunchJob Launch(uint32_t job_id) {
    auto job = std::make_shared<wire::JobRecord>();
    job->set_job_id(job_id);
    job->add_nodes("n1");
    return LaunchJob{job, nullptr};
  }

  testing::TempDir dir_;
  HeldNode node_;
  std::unique_ptr<rpc::RpcServer> server_;
  std::unique_ptr<NodeMessenger> messenger_;
};

// A node answers a launch only once the script runs: the launches of other
// jobs must not queue behind it, or the cluster starts a few jobs at a time.
TEST_F(NodeMessengerTest, LaunchesOfDifferentJobsAreInFlightTogether) {
  Effects effects;
  for (uint32_t id = 1; id <= 8; ++id) effects.launches.push_back(Launch(id));
  messenger_->Carry(effects);
  // None answered yet, so all eight arrived while the others were in flight.
  EXPECT_TRUE(node_.WaitForArrived(8)) << "only " << node_.arrived() << " launches in flight";
}

TEST_F(NodeMessengerTest, ASignalWaitsForItsJobsLaunchToBeAnswered) {
  Effects effects;
  effects.launches.push_back(Launch(7));
  effects.signals.push_back(SignalJob{7, {"n1"}, 15, false, false});
  effects.launches.push_back(Launch(8));
  messenger_->Carry(effects);
  // Job 8's launch overtakes job 7's signal, which waits for job 7's launch.
  ASSERT_TRUE(node_.WaitForArrived(2));
  std::this_thread::sleep_for(200ms);  // Room for a signal that wrongly overtakes.
  ASSERT_EQ(node_.arrived(), 2u);
  EXPECT_EQ(node_.at(0).method, api::kLaunchJob);
  EXPECT_EQ(node_.at(1).method, api::kLaunchJob);
  const size_t launch7 = node_.at(0).job_id == 7 ? 0 : 1;
  ASSERT_EQ(node_.at(launch7).job_id, 7u);
  node_.at(launch7).respond(0, "");
  ASSERT_TRUE(node_.WaitForArrived(3));
  EXPECT_EQ(node_.at(2).method, api::kSignalJob);
  EXPECT_EQ(node_.at(2).job_id, 7u);
}

}  // namespace
}  // namespace rota::ctld
