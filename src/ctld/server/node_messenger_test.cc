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
#include "job_prepare.pb.h"
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
      } else if (context.method == api::kPrepareJob) {
        wire::PrepareJobRequest req;
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
  virtual std::string Settings() const { return ""; }
  void SetUp() override {
    auto server = rpc::RpcServer::Start({}, node_.Handler());
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value();
    testing::LoadedConfig loaded = testing::LoadConfigFiles(
        dir_, testing::ConfigFiles(
                  "ClusterName=t\nSlurmctldHost=localhost\n" + Settings() +
                  "NodeName=n[1-3] NodeAddr=127.0.0.1 Port=" + std::to_string(server_->port()) +
                  " CPUs=8 State=UNKNOWN\n"
                  "PartitionName=p Nodes=n[1-3] Default=YES\n"));
    ASSERT_TRUE(loaded.config.ok()) << loaded.Text();
    messenger_ = std::make_unique<NodeMessenger>(
        *loaded.config, std::make_unique<auth::NoneIssuer>(auth::Identity{0, 0}));
  }
  void TearDown() override {
    node_.AnswerAll();
    messenger_.reset();
    if (server_) server_->Stop();
  }

  static LaunchJob Launch(uint32_t job_id, int nodes = 1) {
    auto job = std::make_shared<wire::JobRecord>();
    job->set_job_id(job_id);
    for (int n = 1; n <= nodes; ++n) job->add_nodes("n" + std::to_string(n));
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

TEST_F(NodeMessengerTest, WithoutPrologFlagsOnlyTheFirstNodeHearsOfTheLaunch) {
  Effects effects;
  effects.launches.push_back(Launch(4, 3));
  messenger_->Carry(effects);
  ASSERT_TRUE(node_.WaitForArrived(1));
  node_.at(0).respond(0, "");
  std::this_thread::sleep_for(200ms);
  ASSERT_EQ(node_.arrived(), 1u);
  EXPECT_EQ(node_.at(0).method, api::kLaunchJob);
}

class NodeMessengerContainTest : public NodeMessengerTest {
 protected:
  std::string Settings() const override { return "PrologFlags=Contain\n"; }
};

// PrologFlags=Contain: the job's other nodes are prepared one after the other
// before the batch launch, and a signal of the job waits behind all of them.
TEST_F(NodeMessengerContainTest, OtherNodesArePreparedBeforeTheLaunchAndTheSignalAfter) {
  Effects effects;
  effects.launches.push_back(Launch(5, 3));
  effects.signals.push_back(SignalJob{5, {"n1", "n2", "n3"}, 9, false, true});
  effects.launches.push_back(Launch(6));  // One node: nothing to prepare
  messenger_->Carry(effects);
  ASSERT_TRUE(node_.WaitForArrived(2));
  std::this_thread::sleep_for(200ms);  // Room for a message that wrongly overtakes.
  ASSERT_EQ(node_.arrived(), 2u);
  const size_t prepare = node_.at(0).job_id == 5 ? 0 : 1;
  EXPECT_EQ(node_.at(prepare).method, api::kPrepareJob);
  EXPECT_EQ(node_.at(1 - prepare).method, api::kLaunchJob);
  EXPECT_EQ(node_.at(1 - prepare).job_id, 6u);
  // n2 and n3 prepared, n1 launched, then the signal to each node.
  const std::vector<uint16_t> expected = {api::kPrepareJob, api::kPrepareJob, api::kLaunchJob,
                                          api::kSignalJob,  api::kSignalJob,  api::kSignalJob};
  size_t next = prepare;
  for (size_t k = 1; k < expected.size(); ++k) {
    node_.at(next).respond(0, "");
    ASSERT_TRUE(node_.WaitForArrived(2 + k)) << "message " << k << " of job 5 never came";
    std::this_thread::sleep_for(50ms);
    ASSERT_EQ(node_.arrived(), 2 + k);
    next = 1 + k;
    EXPECT_EQ(node_.at(next).job_id, 5u);
    EXPECT_EQ(node_.at(next).method, expected[k]) << "message " << k;
  }
}

}  // namespace
}  // namespace rota::ctld
