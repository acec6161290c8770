// A node's end of srun's I/O connection, with real child processes as the
// tasks and a socket pair as srun: output and exits reach srun in order,
// srun's stdin reaches the task it names, memory kills are told once, and
// srun's going away ends the relay.
#include "noded/stepd/step_io_relay.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <map>
#include <string>
#include <vector>

#include "noded/stepd/step_channel.h"

namespace rota::noded {
namespace {

// Runs `script` with sh as task `global_id`, its stdout and stderr on pipes
// (and its stdin on one when `with_stdin`), as the spawner leaves a task.
LocalTask StartShell(uint32_t global_id, const std::string& script, bool with_stdin = false) {
  int out[2], err[2], in[2] = {-1, -1};
  EXPECT_EQ(pipe2(out, O_CLOEXEC), 0);
  EXPECT_EQ(pipe2(err, O_CLOEXEC), 0);
  if (with_stdin) {
    EXPECT_EQ(pipe2(in, O_CLOEXEC), 0);
  }
  pid_t pid = fork();
  if (pid == 0) {
    dup2(out[1], 1);
    dup2(err[1], 2);
    if (with_stdin) dup2(in[0], 0);
    execl("/bin/sh", "sh", "-c", script.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(out[1]);
  close(err[1]);
  LocalTask task;
  task.global_id = global_id;
  task.pid = pid;
  task.fds[0] = out[0];
  task.fds[1] = err[0];
  if (with_stdin) {
    close(in[0]);
    fcntl(in[1], F_SETFL, O_NONBLOCK);
    task.stdin_fd = in[1];
  }
  return task;
}

class FakeTaskEnds : public TaskEndHooks {
 public:
  void Exiting(const LocalTask& task) override { exiting.push_back(task.pid); }
  void Reaped(const LocalTask& task) override { reaped.push_back(task.global_id); }
  uint64_t StepOomKills() override { return oom_kills; }

  std::vector<pid_t> exiting;
  std::vector<uint32_t> reaped;
  uint64_t oom_kills = 0;
};

// What srun was sent, in order, until the connection ran dry.
std::vector<wire::TaskIoFrame> FramesAtSrun(int srun) {
  std::vector<wire::TaskIoFrame> frames;
  wire::TaskIoFrame frame;
  while (ReadStepMessage(srun, frame, std::chrono::milliseconds(200)).ok()) frames.push_back(frame);
  return frames;
}

// Each task's output of one kind, joined across frames.
std::map<uint32_t, std::string> Output(const std::vector<wire::TaskIoFrame>& frames,
                                       wire::TaskIoFrame::Kind kind) {
  std::map<uint32_t, std::string> out;
  for (const wire::TaskIoFrame& f : frames) {
    if (f.kind() == kind) out[f.task()] += f.data();
  }
  return out;
}

class StepIoRelayTest : public ::testing::Test {
 protected:
  void SetUp() override {
    int pair[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair), 0);
    srun_ = pair[0];
    relay_ = std::make_unique<StepIoRelay>(pair[1], 7, 3, "n1");
  }
  void TearDown() override {
    if (srun_ >= 0) close(srun_);
  }
  void SendFromSrun(const wire::TaskIoFrame& frame) {
    ASSERT_TRUE(WriteStepMessage(srun_, frame).ok());
  }

  int srun_ = -1;
  std::unique_ptr<StepIoRelay> relay_;
  FakeTaskEnds ends_;
};

TEST_F(StepIoRelayTest, HelloCarriesTheKeyAndTheNode) {
  ASSERT_TRUE(relay_->Hello("secret").ok());
  relay_->SendFailure("no such program");
  std::vector<wire::TaskIoFrame> frames = FramesAtSrun(srun_);
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[0].kind(), wire::TaskIoFrame::HELLO);
  EXPECT_EQ(frames[0].io_key(), "secret");
  EXPECT_EQ(frames[0].node(), "n1");
  EXPECT_EQ(frames[1].kind(), wire::TaskIoFrame::FAILED);
  EXPECT_EQ(frames[1].node(), "n1");
  EXPECT_EQ(frames[1].data(), "no such program");
}

TEST_F(StepIoRelayTest, OutputComesBeforeEachTasksExit) {
  std::vector<LocalTask> tasks;
  tasks.push_back(StartShell(4, "printf out4; printf err4 >&2; exit 3"));
  tasks.push_back(StartShell(5, "printf out5"));
  const pid_t first = tasks[0].pid;
  ASSERT_TRUE(relay_->RelayUntilDone(tasks, nullptr, ends_));
  std::vector<wire::TaskIoFrame> frames = FramesAtSrun(srun_);
  EXPECT_EQ(Output(frames, wire::TaskIoFrame::STDOUT),
            (std::map<uint32_t, std::string>{{4, "out4"}, {5, "out5"}}));
  EXPECT_EQ(Output(frames, wire::TaskIoFrame::STDERR),
            (std::map<uint32_t, std::string>{{4, "err4"}}));
  std::map<uint32_t, uint32_t> exits;
  std::map<uint32_t, bool> output_after_exit;
  for (const wire::TaskIoFrame& f : frames) {
    if (f.kind() == wire::TaskIoFrame::EXIT) {
      EXPECT_FALSE(f.out_of_memory());
      exits[f.task()] = f.wait_status();
    } else if (exits.count(f.task()) != 0) {
      output_after_exit[f.task()] = true;
    }
  }
  EXPECT_EQ(exits, (std::map<uint32_t, uint32_t>{{4, 3u << 8}, {5, 0u}}));
  EXPECT_TRUE(output_after_exit.empty());
  EXPECT_EQ(ends_.exiting.size(), 2u);
  EXPECT_NE(std::find(ends_.exiting.begin(), ends_.exiting.end(), first), ends_.exiting.end());
  EXPECT_EQ(ends_.reaped.size(), 2u);
  for (const LocalTask& task : tasks) {
    EXPECT_TRUE(task.exited);
    EXPECT_TRUE(task.reported);
    EXPECT_EQ(task.fds[0], -1);
    EXPECT_EQ(task.fds[1], -1);
  }
}

TEST_F(StepIoRelayTest, SrunsStdinReachesTheTaskItNames) {
  std::vector<LocalTask> tasks;
  tasks.push_back(StartShell(0, "cat", /*with_stdin=*/true));
  tasks.push_back(StartShell(1, "cat", /*with_stdin=*/true));
  wire::TaskIoFrame data;
  data.set_kind(wire::TaskIoFrame::STDIN);
  data.set_task(1);
  data.set_data("to one\n");
  SendFromSrun(data);
  wire::TaskIoFrame eof;
  eof.set_kind(wire::TaskIoFrame::STDIN_EOF);
  eof.set_all_tasks(true);
  SendFromSrun(eof);
  ASSERT_TRUE(relay_->RelayUntilDone(tasks, nullptr, ends_));
  std::vector<wire::TaskIoFrame> frames = FramesAtSrun(srun_);
  EXPECT_EQ(Output(frames, wire::TaskIoFrame::STDOUT),
            (std::map<uint32_t, std::string>{{1, "to one\n"}}));
  for (const LocalTask& task : tasks) EXPECT_EQ(task.stdin_fd, -1);
}

TEST_F(StepIoRelayTest, MemoryKillsAreToldOnceAndMarkTheFailedTasks) {
  ends_.oom_kills = 2;
  std::vector<LocalTask> tasks;
  tasks.push_back(StartShell(0, "exit 1"));
  tasks.push_back(StartShell(1, "exit 1"));
  tasks.push_back(StartShell(2, "exit 0"));
  ASSERT_TRUE(relay_->RelayUntilDone(tasks, nullptr, ends_));
  std::vector<wire::TaskIoFrame> frames = FramesAtSrun(srun_);
  int told = 0;
  for (const wire::TaskIoFrame& f : frames) {
    if (f.kind() == wire::TaskIoFrame::STDERR) {
      ++told;
      EXPECT_NE(f.data().find("Detected 2 oom-kill event(s) in StepId=7.3 cgroup on n1"),
                std::string::npos)
          << f.data();
    }
    if (f.kind() == wire::TaskIoFrame::EXIT) {
      EXPECT_EQ(f.out_of_memory(), f.task() != 2) << f.task();
    }
  }
  EXPECT_EQ(told, 1);
}

TEST_F(StepIoRelayTest, SrunGoingAwayEndsTheRelayAndLeavesTheTasks) {
  std::vector<LocalTask> tasks;
  tasks.push_back(StartShell(0, "sleep 30"));
  close(srun_);
  srun_ = -1;
  EXPECT_FALSE(relay_->RelayUntilDone(tasks, nullptr, ends_));
  EXPECT_FALSE(tasks[0].exited);
  EXPECT_TRUE(ends_.exiting.empty());
  kill(tasks[0].pid, SIGKILL);
  waitpid(tasks[0].pid, nullptr, 0);
  for (int fd : tasks[0].fds) {
    if (fd >= 0) close(fd);
  }
}

TEST(WritePendingStdinTest, ClosesOnceSrunsStdinEndedAndAllIsWritten) {
  int in[2];
  ASSERT_EQ(pipe2(in, O_CLOEXEC | O_NONBLOCK), 0);
  LocalTask task;
  task.stdin_fd = in[1];
  task.stdin_pending = "abc";
  WritePendingStdin(task);
  EXPECT_TRUE(task.stdin_pending.empty());
  EXPECT_EQ(task.stdin_fd, in[1]);  // srun's stdin still open
  task.stdin_pending = "def";
  task.stdin_eof = true;
  WritePendingStdin(task);
  EXPECT_EQ(task.stdin_fd, -1);
  char buf[16] = {};
  EXPECT_EQ(read(in[0], buf, sizeof buf), 6);
  EXPECT_EQ(std::string(buf), "abcdef");
  EXPECT_EQ(read(in[0], buf, sizeof buf), 0);  // The task sees the end
  close(in[0]);
}

TEST(WritePendingStdinTest, ATaskThatStoppedReadingLosesItsStdin) {
  int in[2];
  ASSERT_EQ(pipe2(in, O_CLOEXEC | O_NONBLOCK), 0);
  close(in[0]);
  auto previous = signal(SIGPIPE, SIG_IGN);  // As in rotad: EPIPE instead
  LocalTask task;
  task.stdin_fd = in[1];
  task.stdin_pending = "unread";
  WritePendingStdin(task);
  signal(SIGPIPE, previous);
  EXPECT_EQ(task.stdin_fd, -1);
  EXPECT_TRUE(task.stdin_pending.empty());
}

}  // namespace
}  // namespace rota::noded
