// srun's end of its step's I/O with the nodes played by the test over
// loopback TCP and their launch answers faked: output reaches srun's stdout,
// only nodes with the key are heard, -K and failed launches kill the step,
// a PMI fence is merged across nodes, and how srun ends follows from its
// tasks' exits.
#include "cli/step/srun_io_relay.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include "testing/temp_dir.h"

namespace rota::cli {
namespace {

class FakeStepNodes : public StepNodes {
 public:
  LaunchAnswers Answers() override { return answers; }
  void SignalAll(int signal) override { signals.push_back(signal); }

  LaunchAnswers answers;
  std::vector<int> signals;
};

// A node's connection to srun's relay, as rotad makes it.
class FakeNode {
 public:
  explicit FakeNode(uint16_t port) {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
    EXPECT_EQ(connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  }
  ~FakeNode() { Close(); }
  void Close() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }

  void Send(const wire::TaskIoFrame& frame) {
    std::string body = frame.SerializeAsString();
    const uint32_t len = htonl(static_cast<uint32_t>(body.size()));
    std::string message(reinterpret_cast<const char*>(&len), 4);
    message += body;
    ASSERT_EQ(write(fd_, message.data(), message.size()), static_cast<ssize_t>(message.size()));
  }
  void Hello(const std::string& key, const std::string& node) {
    wire::TaskIoFrame frame;
    frame.set_kind(wire::TaskIoFrame::HELLO);
    frame.set_io_key(key);
    frame.set_node(node);
    Send(frame);
  }
  void Output(uint32_t task, const std::string& data) {
    wire::TaskIoFrame frame;
    frame.set_kind(wire::TaskIoFrame::STDOUT);
    frame.set_task(task);
    frame.set_data(data);
    Send(frame);
  }
  void Exit(uint32_t task, uint32_t wait_status, uint64_t max_rss_kb = 0) {
    wire::TaskIoFrame frame;
    frame.set_kind(wire::TaskIoFrame::EXIT);
    frame.set_task(task);
    frame.set_wait_status(wait_status);
    frame.set_max_rss_kb(max_rss_kb);
    Send(frame);
  }
  // The next frame srun sent this node; false when none is there.
  bool Receive(wire::TaskIoFrame& frame) {
    unsigned char header[4];
    if (recv(fd_, header, 4, MSG_DONTWAIT | MSG_WAITALL) != 4) return false;
    const uint32_t len = (uint32_t{header[0]} << 24) | (uint32_t{header[1]} << 16) |
                         (uint32_t{header[2]} << 8) | header[3];
    std::string body(len, '\0');
    if (len > 0 && recv(fd_, body.data(), len, MSG_WAITALL) != static_cast<ssize_t>(len)) {
      return false;
    }
    return frame.ParseFromString(body);
  }

 private:
  int fd_ = -1;
};

std::string Drain(int fd) {
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));
  return out;
}

class SrunIoRelayTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(pipe2(out_, O_CLOEXEC | O_NONBLOCK), 0);
    options_.input.kind = StepIoOption::kNone;
    step_.set_job_id(7);
    step_.set_step_id(2);
  }
  void TearDown() override {
    close(out_[0]);
    close(out_[1]);
  }
  void OnNodes(std::vector<std::string> nodes, std::vector<uint32_t> tasks_per_node) {
    uint32_t total = 0;
    for (size_t i = 0; i < nodes.size(); ++i) {
      step_.add_nodes(nodes[i]);
      step_.add_tasks_per_node(tasks_per_node[i]);
      total += tasks_per_node[i];
    }
    step_.set_num_tasks(total);
    nodes_.answers.answered = static_cast<int>(nodes.size());
    nodes_.answers.started = static_cast<int>(nodes.size());
  }
  std::unique_ptr<SrunIoRelay> Listen() {
    SrunStreams streams;
    streams.in = -1;
    streams.out = out_[1];
    Result<std::unique_ptr<SrunIoRelay>> relay =
        SrunIoRelay::Listen("127.0.0.1", options_, step_, streams);
    EXPECT_TRUE(relay.ok()) << relay.status().message();
    return relay.ok() ? std::move(relay).value() : nullptr;
  }

  int out_[2] = {-1, -1};  // srun's stdout
  SrunOptions options_;
  wire::JobStepRecord step_;
  FakeStepNodes nodes_;
};

TEST_F(SrunIoRelayTest, OutputAndExitsOfNodesThatKnowTheKey) {
  OnNodes({"n1"}, {2});
  std::unique_ptr<SrunIoRelay> relay = Listen();
  ASSERT_NE(relay, nullptr);
  EXPECT_EQ(relay->key().size(), 16u);
  FakeNode stranger(relay->port());
  stranger.Hello("not the key", "n9");
  stranger.Output(0, "forged\n");
  stranger.Exit(0, 0);
  FakeNode node(relay->port());
  node.Hello(relay->key(), "n1");
  node.Output(0, "hello ");
  node.Output(1, "world\n");
  node.Exit(0, 0, 2048);
  node.Exit(1, 3u << 8, 1024);
  StepOutcome outcome = relay->Run(nodes_, -1);
  EXPECT_EQ(Drain(out_[0]), "hello world\n");
  EXPECT_EQ(outcome.exits, (std::map<uint32_t, uint32_t>{{0, 0}, {1, 3u << 8}}));
  EXPECT_EQ(outcome.task_node, (std::map<uint32_t, std::string>{{0, "n1"}, {1, "n1"}}));
  EXPECT_FALSE(outcome.failed);
  EXPECT_EQ(outcome.usage.Summary().max_rss_kb(), 2048u);
  EXPECT_TRUE(nodes_.signals.empty());
}

TEST_F(SrunIoRelayTest, KillOnBadExitEndsTheStep) {
  options_.kill_on_bad_exit = true;
  OnNodes({"n1"}, {2});
  std::unique_ptr<SrunIoRelay> relay = Listen();
  ASSERT_NE(relay, nullptr);
  FakeNode node(relay->port());
  node.Hello(relay->key(), "n1");
  node.Exit(1, 2u << 8);
  node.Exit(0, SIGKILL);
  StepOutcome outcome = relay->Run(nodes_, -1);
  EXPECT_EQ(nodes_.signals, std::vector<int>{SIGKILL});
  EXPECT_EQ(outcome.exits.size(), 2u);
  StepEnding ending = StepEndingOf(outcome);
  EXPECT_EQ(ending.exit_code, 2);  // The failing task's code, not the kill's
  EXPECT_EQ(ending.wait_status, 2u << 8);
}

TEST_F(SrunIoRelayTest, AFailedLaunchFailsTheStep) {
  OnNodes({"n1", "n2"}, {1, 1});
  nodes_.answers.started = 0;
  nodes_.answers.errors = {"n1: no such program", "n2: no such program"};
  std::unique_ptr<SrunIoRelay> relay = Listen();
  ASSERT_NE(relay, nullptr);
  StepOutcome outcome = relay->Run(nodes_, -1);
  EXPECT_TRUE(outcome.failed);
  EXPECT_EQ(nodes_.signals, std::vector<int>{SIGKILL});
  EXPECT_EQ(StepEndingOf(outcome).exit_code, 1);
}

TEST_F(SrunIoRelayTest, ANodeThatGoesAwayBeforeItsTasksEndIsLostContact) {
  OnNodes({"n1"}, {1});
  std::unique_ptr<SrunIoRelay> relay = Listen();
  ASSERT_NE(relay, nullptr);
  FakeNode node(relay->port());
  node.Hello(relay->key(), "n1");
  node.Close();
  StepOutcome outcome = relay->Run(nodes_, -1);
  EXPECT_TRUE(outcome.failed);
  EXPECT_TRUE(outcome.exits.empty());
}

TEST_F(SrunIoRelayTest, APmiFenceEndsOnceEveryNodeEnteredIt) {
  OnNodes({"n1", "n2"}, {1, 1});
  std::unique_ptr<SrunIoRelay> relay = Listen();
  ASSERT_NE(relay, nullptr);
  FakeNode n1(relay->port());
  FakeNode n2(relay->port());
  n1.Hello(relay->key(), "n1");
  n2.Hello(relay->key(), "n2");
  for (auto [node, key] : {std::pair{&n1, "a"}, std::pair{&n2, "b"}}) {
    wire::TaskIoFrame fence;
    fence.mutable_pmi()->set_kind(wire::PmiExchange::FENCE);
    fence.mutable_pmi()->set_round(0);
    wire::PmiPair* pair = fence.mutable_pmi()->add_pairs();
    pair->set_key(key);
    pair->set_value("1");
    node->Send(fence);
  }
  n1.Exit(0, 0);
  n2.Exit(1, 0);
  StepOutcome outcome = relay->Run(nodes_, -1);
  EXPECT_EQ(outcome.exits.size(), 2u);
  for (FakeNode* node : {&n1, &n2}) {
    wire::TaskIoFrame done;
    ASSERT_TRUE(node->Receive(done));
    EXPECT_EQ(done.pmi().kind(), wire::PmiExchange::FENCE_DONE);
    ASSERT_EQ(done.pmi().pairs_size(), 2);
    EXPECT_EQ(done.pmi().pairs(0).key(), "a");
    EXPECT_EQ(done.pmi().pairs(1).key(), "b");
  }
}

TEST(StepEndingTest, TheHighestExitCodeAndAnErrorPerFailedTask) {
  StepOutcome outcome;
  outcome.exits = {{0, 0}, {1, 2u << 8}, {2, SIGTERM}, {3, 1u << 8}};
  outcome.task_node = {{0, "n1"}, {1, "n1"}, {2, "n2"}, {3, "n2"}};
  outcome.out_of_memory = {3};
  StepEnding ending = StepEndingOf(outcome);
  EXPECT_EQ(ending.exit_code, 2);
  EXPECT_EQ(ending.wait_status, 2u << 8);
  EXPECT_EQ(ending.task_errors,
            (std::vector<std::string>{"srun: error: n1: task 1: Exited with exit code 2",
                                      std::string("srun: error: n2: task 2: ") + strsignal(SIGTERM),
                                      "srun: error: n2: task 3: Out Of Memory"}));
}

TEST(StepEndingTest, AFailedStepWhoseTasksAllSucceededStillFails) {
  StepOutcome outcome;
  outcome.exits = {{0, 0}};
  outcome.failed = true;
  StepEnding ending = StepEndingOf(outcome);
  EXPECT_EQ(ending.exit_code, 1);
  EXPECT_EQ(ending.wait_status, 1u << 8);
  EXPECT_TRUE(ending.task_errors.empty());
}

TEST(OutputFilesTest, OneFileForAllTasksIsSrunsToWrite) {
  rota::testing::TempDir dir;
  wire::CreateStepResponse created;
  created.mutable_step()->set_job_id(7);
  created.mutable_step()->set_step_id(2);
  SrunOptions options;
  std::optional<SrunStreams> streams = OpenOutputFiles(options, created);
  ASSERT_TRUE(streams);
  EXPECT_EQ(streams->out, 1);
  EXPECT_EQ(streams->err, 2);
  // A per-task pattern is the nodes' to write.
  options.output = {StepIoOption::kFile, (dir.path() / "out-%t").string(), 0};
  streams = OpenOutputFiles(options, created);
  ASSERT_TRUE(streams);
  EXPECT_EQ(streams->out, 1);
  // -e naming what -o names: one file for both.
  options.output = {StepIoOption::kFile, (dir.path() / "out-%j.%s").string(), 0};
  options.error = options.output;
  streams = OpenOutputFiles(options, created);
  ASSERT_TRUE(streams);
  EXPECT_GT(streams->out, 2);
  EXPECT_EQ(streams->err, streams->out);
  EXPECT_EQ(access((dir.path() / "out-7.2").c_str(), F_OK), 0);
  CloseOutputFiles(*streams);
  options.error = {StepIoOption::kFile, (dir.path() / "missing/err").string(), 0};
  EXPECT_FALSE(OpenOutputFiles(options, created));
}

}  // namespace
}  // namespace rota::cli
