#include "cli/step/raw_terminal.h"

#include <gtest/gtest.h>
#include <pty.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

namespace rota::cli {
namespace {

// A pseudo-terminal standing in for srun's terminal.
class RawTerminalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    winsize size{};
    size.ws_row = 33;
    size.ws_col = 101;
    ASSERT_EQ(openpty(&master_, &terminal_, nullptr, nullptr, &size), 0);
    ASSERT_EQ(tcgetattr(terminal_, &before_), 0);
    ASSERT_NE(before_.c_lflag & ICANON, 0u);  // A new terminal is cooked.
  }
  void TearDown() override {
    close(master_);
    close(terminal_);
  }
  termios Mode() const {
    termios now{};
    tcgetattr(terminal_, &now);
    return now;
  }
  bool SameAsBefore() const {
    termios now = Mode();
    return now.c_lflag == before_.c_lflag && now.c_iflag == before_.c_iflag &&
           now.c_oflag == before_.c_oflag && now.c_cflag == before_.c_cflag;
  }

  int master_ = -1;
  int terminal_ = -1;
  termios before_{};
};

TEST_F(RawTerminalTest, RawWhileHeldRestoredAfter) {
  {
    std::optional<RawTerminal> raw = RawTerminal::Enter(terminal_);
    ASSERT_TRUE(raw.has_value());
    termios now = Mode();
    EXPECT_EQ(now.c_lflag & (ICANON | ECHO | ISIG), 0u);
    EXPECT_EQ(now.c_oflag & OPOST, 0u);
    // One at a time.
    EXPECT_FALSE(RawTerminal::Enter(terminal_).has_value());
    raw->Restore();
    EXPECT_TRUE(SameAsBefore());
    raw->Restore();  // Twice is harmless.
  }
  {
    std::optional<RawTerminal> raw = RawTerminal::Enter(terminal_);
    ASSERT_TRUE(raw.has_value());
    EXPECT_FALSE(SameAsBefore());
  }
  EXPECT_TRUE(SameAsBefore());  // The destructor put it back.
}

TEST_F(RawTerminalTest, NotATerminalIsLeftAlone) {
  int p[2];
  ASSERT_EQ(pipe(p), 0);
  EXPECT_FALSE(RawTerminal::Enter(p[0]).has_value());
  EXPECT_FALSE(TerminalWindowSize(p[0]).has_value());
  close(p[0]);
  close(p[1]);
}

TEST_F(RawTerminalTest, WindowSize) {
  std::optional<WindowSize> size = TerminalWindowSize(terminal_);
  ASSERT_TRUE(size.has_value());
  EXPECT_EQ(size->rows, 33u);
  EXPECT_EQ(size->cols, 101u);
}

// A process that dies of a signal it does not handle, or exits without
// unwinding, still leaves the terminal as it found it.
TEST_F(RawTerminalTest, RestoredWhenTheProcessDiesOrExits) {
  for (int how : {0, 1}) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      std::optional<RawTerminal> raw = RawTerminal::Enter(terminal_);
      if (!raw) _exit(3);
      if (how == 0) raise(SIGALRM);
      std::exit(0);  // No destructor runs.
    }
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    if (how == 0) {
      ASSERT_TRUE(WIFSIGNALED(status)) << status;
      EXPECT_EQ(WTERMSIG(status), SIGALRM);
    } else {
      ASSERT_TRUE(WIFEXITED(status));
      EXPECT_EQ(WEXITSTATUS(status), 0);
    }
    EXPECT_TRUE(SameAsBefore()) << "how " << how;
  }
}

}  // namespace
}  // namespace rota::cli
