#include "noded/stepd/step_channel.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <thread>

#include "testing/temp_dir.h"

namespace rota::noded {
namespace {

TEST(StepChannelTest, FramedMessageCrossesASocketPair) {
  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  wire::StepRequest request;
  request.mutable_signal()->set_signal(15);
  request.mutable_signal()->set_terminate(true);
  ASSERT_TRUE(WriteStepMessage(fds[0], request).ok());
  wire::StepRequest back;
  ASSERT_TRUE(ReadStepMessage(fds[1], back, std::chrono::seconds(1)).ok());
  EXPECT_EQ(back.signal().signal(), 15);
  EXPECT_TRUE(back.signal().terminate());
  // Nothing more comes: a timeout; the peer gone: unavailable.
  EXPECT_FALSE(ReadStepMessage(fds[1], back, std::chrono::milliseconds(20)).ok());
  close(fds[0]);
  Status closed = ReadStepMessage(fds[1], back, std::chrono::seconds(1));
  EXPECT_EQ(closed.code(), StatusCode::kUnavailable);
  close(fds[1]);
}

TEST(StepChannelTest, OversizedLengthIsRefused) {
  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  const unsigned char header[4] = {0xff, 0xff, 0xff, 0xff};
  ASSERT_EQ(write(fds[0], header, 4), 4);
  wire::StepRequest back;
  EXPECT_EQ(ReadStepMessage(fds[1], back, std::chrono::seconds(1)).code(),
            StatusCode::kInvalidArgument);
  close(fds[0]);
  close(fds[1]);
}

TEST(StepChannelTest, AskGetsTheListenersAnswer) {
  testing::TempDir dir;
  const std::string path = (dir.path() / "job1.sock").string();
  EXPECT_EQ(AskStepDaemon(path, wire::StepRequest(), std::chrono::seconds(1)).status().code(),
            StatusCode::kUnavailable);
  Result<int> listening = ListenStepSocket(path);
  ASSERT_TRUE(listening.ok()) << listening.status().message();
  struct stat st {};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  std::thread server([fd = *listening] {
    int conn = accept(fd, nullptr, nullptr);
    wire::StepRequest request;
    if (ReadStepMessage(conn, request, std::chrono::seconds(5)).ok() && request.status()) {
      wire::StepStatus answer;
      answer.set_state(wire::StepStatus::STEP_RUNNING);
      answer.set_stepd_pid(1234);
      (void)WriteStepMessage(conn, answer);
    }
    close(conn);
  });
  wire::StepRequest ask;
  ask.set_status(true);
  Result<wire::StepStatus> answer = AskStepDaemon(path, ask, std::chrono::seconds(5));
  server.join();
  close(*listening);
  ASSERT_TRUE(answer.ok()) << answer.status().message();
  EXPECT_EQ(answer->state(), wire::StepStatus::STEP_RUNNING);
  EXPECT_EQ(answer->stepd_pid(), 1234);
}

}  // namespace
}  // namespace rota::noded
