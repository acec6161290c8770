// The fork server's side of step_forker.h, in a child process of the test:
// its greeting, a forked step in a session of its own, a bad request, and its
// end when the other side closes.
#include "noded/stepd/step_forker.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <string>

namespace rota::noded {
namespace {

int32_t Receive(int fd) {
  int32_t value = 0;
  EXPECT_EQ(recv(fd, &value, sizeof value, 0), static_cast<ssize_t>(sizeof value));
  return value;
}

int32_t Ask(int fd, uint32_t job_id) {
  EXPECT_EQ(send(fd, &job_id, sizeof job_id, MSG_NOSIGNAL), static_cast<ssize_t>(sizeof job_id));
  return Receive(fd);
}

TEST(StepForkerTest, ServerForksEachStepInItsOwnSessionAndEndsWithItsSocket) {
  int ends[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ends), 0);
  int report[2];
  ASSERT_EQ(pipe(report), 0);
  pid_t server = fork();
  ASSERT_GE(server, 0);
  if (server == 0) {
    close(ends[0]);
    close(report[0]);
    int code = ServeStepForks(ends[1], [&](uint32_t job_id) {
      // What the step saw: its job, whether it leads its own session, its parent.
      std::string line = std::to_string(job_id) + " " + std::to_string(getsid(0) == getpid()) +
                         " " + std::to_string(getppid()) + "\n";
      (void)!write(report[1], line.data(), line.size());
      return 3;
    });
    _exit(code == 0 ? 42 : 1);
  }
  close(ends[1]);
  close(report[1]);
  EXPECT_EQ(Receive(ends[0]), server);  // The greeting is its pid.

  int32_t step = Ask(ends[0], 7);
  EXPECT_GT(step, 0);
  char buf[128] = {};
  ssize_t n = read(report[0], buf, sizeof buf - 1);
  ASSERT_GT(n, 0);
  EXPECT_EQ(std::string(buf, n), "7 1 " + std::to_string(server) + "\n");
  // Nobody waits for the step: the kernel reaps it (no zombie left).
  for (int i = 0; i < 500 && kill(step, 0) == 0; ++i) usleep(10'000);
  EXPECT_EQ(kill(step, 0), -1);
  EXPECT_EQ(errno, ESRCH);

  EXPECT_EQ(Ask(ends[0], 0), -EINVAL);  // Job 0 does not exist.

  close(ends[0]);  // rotad gone: the server ends, cleanly.
  int status = 0;
  ASSERT_EQ(waitpid(server, &status, 0), server);
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 42);
  close(report[0]);
}

}  // namespace
}  // namespace rota::noded
