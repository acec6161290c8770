#include "noded/stepd/task_terminal.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>

#include "noded/stepd/task_process.h"

namespace rota::noded {
namespace {

TEST(TaskTerminalTest, OpensSizedAndOwnedByTheTask) {
  Result<TaskTerminal> t = OpenTaskTerminal(24, 80, getuid());
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->name.rfind("/dev/pts/", 0), 0u) << t->name;
  EXPECT_TRUE(isatty(t->terminal));
  winsize size{};
  ASSERT_EQ(ioctl(t->terminal, TIOCGWINSZ, &size), 0);
  EXPECT_EQ(size.ws_row, 24);
  EXPECT_EQ(size.ws_col, 80);
  ResizeTaskTerminal(t->master, 30, 100);
  ASSERT_EQ(ioctl(t->terminal, TIOCGWINSZ, &size), 0);
  EXPECT_EQ(size.ws_row, 30);
  EXPECT_EQ(size.ws_col, 100);
  struct stat st {};
  ASSERT_EQ(fstat(t->terminal, &st), 0);
  EXPECT_EQ(st.st_uid, getuid());
  EXPECT_EQ(st.st_mode & 0777, 0620u);
  EXPECT_EQ(TerminalEndOfFile(t->master), '\x04');
  EXPECT_NE(fcntl(t->master, F_GETFL) & O_NONBLOCK, 0);
  close(t->master);
  close(t->terminal);
}

// A task started on the terminal: its stdin, stdout and stderr, and its
// controlling terminal (/dev/tty opens); what is written to the other side
// is its input; its output ends (EIO) when it exits.
TEST(TaskTerminalTest, TaskRunsOnTheTerminal) {
  Result<TaskTerminal> t = OpenTaskTerminal(24, 80, getuid());
  ASSERT_TRUE(t.ok()) << t.status().message();
  TaskProcessSpec spec;
  spec.argv = {"sh", "-c", "tty; stty size </dev/tty; echo err >&2; read x; echo got:$x; exit 7"};
  spec.env = {"PATH=/usr/bin:/bin"};
  spec.uid = getuid();
  spec.gid = getgid();
  spec.groups = {getgid()};
  spec.work_dir = "/tmp";
  spec.terminal_fd = t->terminal;
  Result<TaskProcess> task = SpawnTaskProcess(spec, {});
  ASSERT_TRUE(task.ok()) << task.status().message();
  close(t->terminal);
  EXPECT_EQ(task->stdout_fd, -1);
  EXPECT_EQ(task->stderr_fd, -1);
  EXPECT_EQ(task->stdin_fd, -1);
  ASSERT_EQ(write(t->master, "hello\n", 6), 6);
  std::string shown;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p{t->master, POLLIN, 0};
    poll(&p, 1, 100);
    char buf[256];
    ssize_t n = read(t->master, buf, sizeof buf);
    if (n > 0) shown.append(buf, static_cast<size_t>(n));
    if (n < 0 && errno == EIO) break;  // The task let go of its terminal.
  }
  close(t->master);
  int status = 0;
  ASSERT_EQ(waitpid(task->pid, &status, 0), task->pid);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 7);
  EXPECT_NE(shown.find(t->name + "\r\n"), std::string::npos) << shown;
  EXPECT_NE(shown.find("24 80\r\n"), std::string::npos) << shown;
  EXPECT_NE(shown.find("err\r\n"), std::string::npos) << shown;
  EXPECT_NE(shown.find("got:hello\r\n"), std::string::npos) << shown;
}

}  // namespace
}  // namespace rota::noded
